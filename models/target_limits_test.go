package models_test

import (
	"testing"

	"sked/models"
)

func TestNormalizeTargetHost(t *testing.T) {
	for in, want := range map[string]string{
		"API.Example.com":        "api.example.com",
		"api.example.com:443":    "api.example.com",
		"api.example.com:80":     "api.example.com",
		"api.example.com:8443":   "api.example.com:8443",
		"127.0.0.1:10001":        "127.0.0.1:10001",
		"[::1]:8080":             "[::1]:8080",
		"[0:0::1]":               "[::1]",
		" my_svc.internal ":      "my_svc.internal",
		"":                       "",
		"http://api.example.com": "",
		"api.example.com/x":      "",
		"user@api.example.com":   "",
		"api.example.com:0":      "",
		"api.example.com:65536":  "",
		"api.example.com:08":     "",
		"-api.example.com":       "",
		"api..example.com":       "",
		"bad_host!":              "",
		"a:b:c":                  "",
	} {
		got, err := models.NormalizeTargetHost(in)
		if want == "" {
			if err == nil {
				t.Errorf("NormalizeTargetHost(%q) = %q, want an error", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("NormalizeTargetHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"https://API.example.com/path?q=1":    "api.example.com",
		"http://api.example.com:8080/":        "api.example.com:8080",
		"https://user:pw@api.example.com:443": "api.example.com",
		"not a url":                           "",
	} {
		if got := models.TargetHostOfURL(in); got != want {
			t.Errorf("TargetHostOfURL(%q) = %q, want %q", in, got, want)
		}
	}
}
