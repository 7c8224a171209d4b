package logstream

import "time"

// The timestamps of log lines. The API server's pods/log with
// timestamps=true prefixes every line with the instant the container
// runtime stamped and one space (the kubelet writes
// "2006-01-02T15:04:05.000000000Z07:00", k8s.io/cri-client pkg/logs
// timeFormatOut; other servers write RFC 3339 with fewer fractional digits
// or a numeric zone offset). Parsing is hand-written so that ingesting a
// line allocates nothing; the fuzz test holds it to time.Parse.

// logTimePrefixMax is the longest prefix parseLogPrefix looks at for the
// space that ends the timestamp: 35 bytes is the longest RFC 3339 instant
// with nine fractional digits and an offset.
const logTimePrefixMax = 36

// parseLogPrefix splits a line read with timestamps=true into its instant
// (in UTC) and the text after the one space that follows it. ok is false,
// and rest is line, when the line does not start with an RFC 3339 instant
// followed by a space (or by the end of the line).
func parseLogPrefix(line []byte) (t time.Time, rest []byte, ok bool) {
	end := -1
	for i := 0; i < len(line) && i <= logTimePrefixMax; i++ {
		if line[i] == ' ' {
			end = i
			break
		}
	}
	if end < 0 {
		if len(line) > logTimePrefixMax {
			return time.Time{}, line, false
		}
		end = len(line)
	}
	t, ok = parseLogTime(line[:end])
	if !ok {
		return time.Time{}, line, false
	}
	if end < len(line) {
		end++ // the space
	}
	return t, line[end:], true
}

// parseLogTime parses an RFC 3339 instant, "2026-01-02T03:04:05Z",
// "2026-01-02T03:04:05.331385Z" or "2026-01-02T03:04:05.953994922+02:00"
// (0 to 9 fractional digits; "Z" or a "±hh:mm" offset), into the same
// instant in UTC. It accepts a subset of what time.Parse(time.RFC3339Nano)
// accepts and answers the same instant for it.
func parseLogTime(b []byte) (time.Time, bool) {
	// 2006-01-02T15:04:05 is 19 bytes; then fraction, then zone.
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	hour, ok4 := digits(b[11:13])
	minute, ok5 := digits(b[14:16])
	sec, ok6 := digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return time.Time{}, false
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	i := 19
	nsec := 0
	if b[i] == '.' {
		i++
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if i-start < 9 {
				nsec = nsec*10 + int(b[i]-'0')
			} else {
				return time.Time{}, false // more than nanoseconds
			}
			i++
		}
		n := i - start
		if n == 0 {
			return time.Time{}, false
		}
		for ; n < 9; n++ {
			nsec *= 10
		}
	}
	if i >= len(b) {
		return time.Time{}, false
	}
	offset := 0
	switch b[i] {
	case 'Z':
		if i+1 != len(b) {
			return time.Time{}, false
		}
	case '+', '-':
		z := b[i:]
		if len(z) != 6 || z[3] != ':' {
			return time.Time{}, false
		}
		hh, okh := digits(z[1:3])
		mm, okm := digits(z[4:6])
		if !okh || !okm || hh > 23 || mm > 59 {
			return time.Time{}, false
		}
		offset = hh*3600 + mm*60
		if z[0] == '-' {
			offset = -offset
		}
	default:
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if offset != 0 {
		t = t.Add(-time.Duration(offset) * time.Second)
	}
	return t, true
}

// digits parses a run of ASCII digits.
func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// daysIn is the number of days of month in year (proleptic Gregorian).
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
