// Command terraform-provider-sked is the Terraform provider for Sked
// (registry.terraform.io/sked/sked). Terraform starts it as a plugin; run it
// with -debug to print a TF_REATTACH_PROVIDERS value for debugging.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"sked/clients/terraform/internal/provider"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	debug := flag.Bool("debug", false, "run the provider with support for debuggers (prints TF_REATTACH_PROVIDERS)")
	flag.Parse()
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: provider.Address,
		Debug:   *debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
