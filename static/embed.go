// Package static embeds the files the web UI serves from /static/: the
// built Tailwind CSS, htmx and the small script that hands htmx the CSRF
// token.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sync"
)

// FS holds every static file, embedded in the binary.
//
//go:embed css js img
var FS embed.FS

var (
	versionsOnce sync.Once
	versions     map[string]string
)

func loadVersions() {
	versions = map[string]string{}
	_ = fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := FS.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		versions[path] = hex.EncodeToString(sum[:])[:12]
		return nil
	})
}

// Version returns a short hash of the content of the file at name (such as
// "css/app.css"), or "" when there is no such file.
func Version(name string) string {
	versionsOnce.Do(loadVersions)
	return versions[name]
}

// URL returns the address of the file at name with its content hash as a
// version query, such as "/static/css/app.css?v=0123456789ab". Such an
// address may be cached for a year: a new build has a new hash.
func URL(name string) string {
	return "/static/" + name + "?v=" + Version(name)
}
