package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestFilesystemMirrorInstall installs the provider the way docs/terraform.md
// says (a binary built from this module in a filesystem mirror), then runs
// the real terraform init, apply, plan and destroy as a user would, with no
// network: the mirror is the only source of sked/sked.
func TestFilesystemMirrorInstall(t *testing.T) {
	t.Parallel()
	const version = "0.0.1"
	tmp := t.TempDir()
	mirror := filepath.Join(tmp, "mirror")
	bin := filepath.Join(mirror, "registry.terraform.io", "sked", "sked", version, runtime.GOOS+"_"+runtime.GOARCH, "terraform-provider-sked_v"+version)
	build := exec.Command("go", "build", "-ldflags", "-X main.version="+version, "-o", bin, ".")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the provider: %v\n%s", err, out)
	}
	rc := filepath.Join(tmp, "terraformrc")
	if err := os.WriteFile(rc, []byte(fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = ["registry.terraform.io/sked/sked"]
  }
  direct {
    exclude = ["registry.terraform.io/sked/sked"]
  }
}
`, mirror)), 0o644); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(tmp, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`terraform {
  required_providers {
    sked = {
      source  = "sked/sked"
      version = %q
    }
  }
}

provider "sked" {
  endpoint = %q
}

resource "sked_job_collection" "c" {
  name                = "mirror-install"
  resource_group_name = "mirror"
  location            = "West Europe"
  sku                 = "standard"
}
`, version, baseURL)
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tf := func(wantCode int, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Getenv("TF_ACC_TERRAFORM_PATH"), args...)
		cmd.Dir = work
		// SKED_TOKEN comes from the test's environment, as a user's would.
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
		}
		if code != wantCode {
			t.Fatalf("terraform %s exited %d, want %d:\n%s", strings.Join(args, " "), code, wantCode, out.String())
		}
		return out.String()
	}
	out := tf(0, "init", "-input=false", "-no-color")
	if !strings.Contains(out, "Installed sked/sked v"+version) {
		t.Errorf("terraform init did not install sked/sked %s from the mirror:\n%s", version, out)
	}
	tf(0, "apply", "-input=false", "-no-color", "-auto-approve")
	var c armCollection
	if err := getARM(t, armID{"default", "mirror", "mirror-install", ""}.collectionPath(), &c); err != nil {
		t.Fatalf("the collection applied through the mirror-installed provider: %v", err)
	}
	tf(0, "plan", "-input=false", "-no-color", "-detailed-exitcode")
	tf(0, "destroy", "-input=false", "-no-color", "-auto-approve")
	if err := getARM(t, armID{"default", "mirror", "mirror-install", ""}.collectionPath(), &c); !isNotFound(err) {
		t.Fatalf("after destroy: %v, want 404", err)
	}
}
