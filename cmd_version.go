package main

import (
	"context"
	"fmt"
)

// version is set at build time with -ldflags "-X main.version=…"; "dev"
// otherwise.
var version = "dev"

// cmdVersion implements `sked version`: it prints the version.
func cmdVersion(ctx context.Context, sio stdio, args []string) error {
	fmt.Fprintln(sio.out, "sked", version)
	return nil
}
