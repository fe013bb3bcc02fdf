package pgserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Binaries is a directory holding the PostgreSQL server programs initdb,
// pg_ctl and postgres, and their major version (such as "15", or "9.6" for
// versions before 10).
type Binaries struct {
	Dir     string
	Version string
}

// Path returns the path of the program name (such as "initdb") in b.Dir.
func (b Binaries) Path(name string) string { return filepath.Join(b.Dir, name) }

// serverPrograms are the programs a Binaries directory must hold.
var serverPrograms = []string{"initdb", "pg_ctl", "postgres"}

// libGlob is where Debian and Ubuntu install the server binaries of every
// PostgreSQL major version. A variable so tests can point it elsewhere.
var libGlob = "/usr/lib/postgresql/*/bin"

// FindBinaries locates initdb, pg_ctl and postgres. It looks first in PATH,
// resolving symbolic links (so /usr/local/bin/initdb pointing to
// /usr/lib/postgresql/15/bin/initdb yields that directory) and requiring all
// three programs in one directory, then in /usr/lib/postgresql/*/bin, highest
// major version first. When none are found it returns an error wrapping
// ErrNoBinaries that says how to install PostgreSQL or set
// SKED_DATABASE_URL. It is safe for concurrent use.
func FindBinaries() (Binaries, error) {
	var candidates []string
	if p, err := exec.LookPath("initdb"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				candidates = append(candidates, filepath.Dir(real))
			}
		}
	}
	candidates = append(candidates, libDirs()...)
	var tried []string
	for _, dir := range candidates {
		b, err := binariesIn(dir)
		if err == nil {
			return b, nil
		}
		tried = append(tried, err.Error())
	}
	msg := fmt.Sprintf("pgserver: %v in PATH or %s: install them with `apt-get install postgresql` (Debian/Ubuntu), or set SKED_DATABASE_URL to use an existing PostgreSQL database", ErrNoBinaries, libGlob)
	if len(tried) > 0 {
		msg += " (" + strings.Join(tried, "; ") + ")"
	}
	return Binaries{}, &wrapped{msg: msg, err: ErrNoBinaries}
}

// findBinariesVersion returns binaries of the major version want: the ones
// FindBinaries returns if they match, else /usr/lib/postgresql/<want>/bin.
func findBinariesVersion(found Binaries, want string) (Binaries, bool) {
	if found.Version == want {
		return found, true
	}
	for _, dir := range libDirs() {
		if b, err := binariesIn(dir); err == nil && b.Version == want {
			return b, true
		}
	}
	return Binaries{}, false
}

// libDirs lists the directories matching libGlob, highest version first.
func libDirs() []string {
	dirs, _ := filepath.Glob(libGlob)
	sort.SliceStable(dirs, func(i, j int) bool {
		return versionLess(filepath.Base(filepath.Dir(dirs[j])), filepath.Base(filepath.Dir(dirs[i])))
	})
	return dirs
}

// versionLess compares dotted version numbers numerically ("9.6" < "10").
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, errx := strconv.Atoi(as[i])
		y, erry := strconv.Atoi(bs[i])
		if errx != nil || erry != nil {
			if as[i] != bs[i] {
				return as[i] < bs[i]
			}
			continue
		}
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

// binariesIn checks that dir holds the three server programs and asks
// postgres for its version.
func binariesIn(dir string) (Binaries, error) {
	for _, name := range serverPrograms {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			return Binaries{}, fmt.Errorf("%s has no executable %s", dir, name)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(dir, "postgres"), "--version").CombinedOutput()
	if err != nil {
		return Binaries{}, fmt.Errorf("%s/postgres --version: %v: %s", dir, err, tail(out))
	}
	v, err := majorVersion(string(out))
	if err != nil {
		return Binaries{}, fmt.Errorf("%s/postgres --version: %v", dir, err)
	}
	return Binaries{Dir: dir, Version: v}, nil
}

var versionRE = regexp.MustCompile(`\(PostgreSQL\) (\d+)(?:\.(\d+))?`)

// majorVersion extracts the major version from `postgres --version` output
// such as "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)".
func majorVersion(out string) (string, error) {
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("unrecognised version output %q", strings.TrimSpace(out))
	}
	if n, _ := strconv.Atoi(m[1]); n < 10 && m[2] != "" {
		return m[1] + "." + m[2], nil
	}
	return m[1], nil
}

// wrapped is an error with its own message that still matches err with
// errors.Is.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }
