// Command demoapp is the program of the real node's demo images: one static
// binary with no shell beside it, run in one of these modes (the first
// argument):
//
//	web     HTTP on -addr (GET: a greeting naming the pod's hostname; POST /echo: the body back)
//	        and a TCP echo server on -echo-addr (every byte back), for port-forward
//	logs    numbered lines ("seq=N ..."), -rate per second (0: as fast as it can)
//	crash   a line a second, then exits with -code after -after
//	hostile a log of terminal escape sequences, invalid UTF-8 and one 200,000-byte line,
//	        then one hostile line every -every
//	idle    waits, a line a minute (the container without a shell)
//
// Every mode exits 0 on SIGTERM or SIGINT.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: demoapp web|logs|crash|hostile|idle [flags]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	mode, args := os.Args[1], os.Args[2:]
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	var err error
	switch mode {
	case "web":
		addr := fs.String("addr", ":8080", "HTTP listen address")
		echo := fs.String("echo-addr", ":9000", "TCP echo listen address")
		fs.Parse(args)
		err = web(ctx, *addr, *echo)
	case "logs":
		rate := fs.Int("rate", 100, "lines per second; 0 writes as fast as it can")
		size := fs.Int("size", 80, "bytes per line, padded (at least the sequence number)")
		fs.Parse(args)
		err = logs(ctx, os.Stdout, *rate, *size)
	case "crash":
		after := fs.Duration("after", 5*time.Second, "how long to run before exiting")
		code := fs.Int("code", 1, "exit code")
		fs.Parse(args)
		err = crash(ctx, *after, *code)
	case "hostile":
		every := fs.Duration("every", 10*time.Second, "interval of the repeated hostile line")
		fs.Parse(args)
		err = hostile(ctx, os.Stdout, *every)
	case "idle":
		fs.Parse(args)
		fmt.Println("idle: no shell in this image; waiting")
		err = tick(ctx, time.Minute, func(n int) { fmt.Printf("idle: still here (%d)\n", n) })
	default:
		fmt.Fprintf(os.Stderr, "unknown mode %q\n", mode)
		os.Exit(2)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, mode+":", err)
		os.Exit(1)
	}
}

// tick calls f every d until ctx ends; it returns ctx's error.
func tick(ctx context.Context, d time.Duration, f func(n int)) error {
	t := time.NewTicker(d)
	defer t.Stop()
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			f(n)
		}
	}
}

func web(ctx context.Context, addr, echoAddr string) error {
	host, _ := os.Hostname()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Printf("web: %s %s from %s\n", r.Method, r.URL.Path, r.RemoteAddr)
		fmt.Fprintf(w, "kyyard demo web: hostname=%s path=%s\n", host, r.URL.Path)
	})
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(w, r.Body)
		fmt.Printf("web: echoed %d bytes to %s\n", n, r.RemoteAddr)
	})
	ln, err := net.Listen("tcp", echoAddr)
	if err != nil {
		return err
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				n, _ := io.Copy(c, c)
				fmt.Printf("web: tcp echo of %d bytes to %s\n", n, c.RemoteAddr())
			}()
		}
	}()
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Printf("web: serving HTTP on %s and TCP echo on %s (hostname %s)\n", addr, echoAddr, host)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return ctx.Err()
}

// logs writes "seq=N" lines padded to size bytes, rate lines a second (0: no
// pause), so a reader can tell a lost or repeated line by its number.
func logs(ctx context.Context, w io.Writer, rate, size int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	var interval time.Duration
	if rate > 0 {
		interval = time.Second / time.Duration(rate)
	}
	start := time.Now()
	for seq := 1; ; seq++ {
		line := fmt.Sprintf("seq=%d t=%s ", seq, time.Now().UTC().Format(time.RFC3339Nano))
		if pad := size - len(line); pad > 0 {
			line += strings.Repeat("x", pad)
		}
		if _, err := bw.WriteString(line + "\n"); err != nil {
			return err
		}
		if interval > 0 {
			bw.Flush()
			if d := time.Until(start.Add(time.Duration(seq) * interval)); d > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(d):
				}
			}
		} else if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func crash(ctx context.Context, after time.Duration, code int) error {
	fmt.Printf("crash: started at %s, pid %d; exiting with code %d after %s\n", time.Now().UTC().Format(time.RFC3339), os.Getpid(), code, after)
	cctx, cancel := context.WithTimeout(ctx, after)
	defer cancel()
	err := tick(cctx, time.Second, func(n int) { fmt.Printf("crash: alive %ds\n", n) })
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		fmt.Printf("crash: exiting with code %d\n", code)
		os.Exit(code)
	}
	return err
}

// HostileLines are what the hostile mode writes first: each names what it
// carries, then carries it.
var HostileLines = []string{
	"hostile: colours \x1b[31mred\x1b[0m \x1b[1;42mbold on green\x1b[0m",
	"hostile: clear screen and home \x1b[2J\x1b[H after",
	"hostile: window title \x1b]0;pwned by a log\x07 and OSC 52 clipboard \x1b]52;c;aGFja2Vk\x07",
	"hostile: cursor up \x1b[5A, save \x1b7, restore \x1b8, erase line \x1b[2K",
	"hostile: carriage return\roverwritten, backspaces ab\b\bcd, bell \a, tab\tend",
	"hostile: NUL \x00 and DEL \x7f and C1 CSI \xc2\x9b31m and raw 0x9b \x9b31m",
	"hostile: invalid UTF-8 \xff\xfe, \xc3\x28, truncated \xe2\x82, overlong \xc0\xaf, surrogate \xed\xa0\x80",
	"hostile: right-to-left override \u202eevil\u202c and zero-width \u200b joiners",
}

// LongLineBytes is the length of hostile's long line, without its newline.
const LongLineBytes = 200000

// LongLine is "long-line-start ", 'x' padding and " long-line-end",
// LongLineBytes long.
func LongLine() string {
	head, tail := "long-line-start ", " long-line-end"
	return head + strings.Repeat("x", LongLineBytes-len(head)-len(tail)) + tail
}

func hostile(ctx context.Context, w io.Writer, every time.Duration) error {
	for _, l := range HostileLines {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, LongLine())
	fmt.Fprintln(w, "hostile: done with the first round")
	return tick(ctx, every, func(n int) {
		fmt.Fprintln(w, HostileLines[n%len(HostileLines)])
	})
}
