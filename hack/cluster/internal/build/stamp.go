package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// StampFile is the stamp's file name in the bin folder.
const StampFile = ".stamp"

// StampInputs is everything that decides the binaries' content.
type StampInputs struct {
	// GoMod and GoSum are the module's go.mod and go.sum contents.
	GoMod, GoSum []byte
	// GoVersion is the toolchain (`go env GOVERSION`).
	GoVersion string
	// Steps are the build steps (their arguments carry flags and versions).
	Steps []Step
}

// Stamp returns a hex SHA-256 over in: equal inputs give equal stamps, any
// change to go.mod, go.sum, the toolchain, a flag or the kwok version gives a
// different one.
func Stamp(in StampInputs) string {
	h := sha256.New()
	field := func(name string, data []byte) {
		fmt.Fprintf(h, "%s %d\n", name, len(data))
		h.Write(data)
	}
	field("go.mod", in.GoMod)
	field("go.sum", in.GoSum)
	field("go", []byte(in.GoVersion))
	field("kwok", []byte(KwokVersion))
	field("metrics-server", []byte(MetricsServerVersion))
	field("containerd", []byte(ContainerdVersion))
	field("cni-plugins", []byte(CNIPluginsVersion))
	for _, s := range in.Steps {
		field("step", []byte(fmt.Sprintf("%s outside=%t gobin=%t %q env=%q", s.Binary, s.OutsideModule, s.SetGOBIN, s.Args, s.Env)))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Check reports whether binDir holds every binary and a stamp equal to want; if
// not, reason says why (for the build's output).
func Check(binDir, want string) (upToDate bool, reason string) {
	for _, b := range Binaries {
		fi, err := os.Stat(filepath.Join(binDir, b))
		if err != nil {
			return false, b + " is missing"
		}
		if fi.Mode()&0o111 == 0 {
			return false, b + " is not executable"
		}
	}
	got, err := os.ReadFile(filepath.Join(binDir, StampFile))
	if err != nil {
		return false, "no build stamp"
	}
	if strings.TrimSpace(string(got)) != want {
		return false, "pinned versions or flags changed"
	}
	return true, ""
}

// WriteStamp records stamp in binDir.
func WriteStamp(binDir, stamp string) error {
	return os.WriteFile(filepath.Join(binDir, StampFile), []byte(stamp+"\n"), 0o644)
}
