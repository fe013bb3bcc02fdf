package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// protoV6ProviderFactories runs the provider in the test's process.
var protoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"sked": providerserver.NewProtocol6WithError(New("test")()),
}

// testClient is a client of the test server, for checks beside Terraform.
func testClient(t *testing.T) *client {
	t.Helper()
	c, err := newClient(baseURL, apiToken, "default", "test")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// getARM reads an ARM resource of the test server into out.
func getARM(t *testing.T, path string, out any) error {
	t.Helper()
	return testClient(t).arm(context.Background(), "GET", path, nil, out)
}

// checkGone fails unless every resource of the type is gone from Sked.
func checkGone(t *testing.T, resourceType string, job bool) func(*terraform.State) error {
	return func(s *terraform.State) error {
		for _, rs := range s.RootModule().Resources {
			if rs.Type != resourceType {
				continue
			}
			id, err := parseARMID(rs.Primary.ID, job)
			if err != nil {
				return err
			}
			p := id.collectionPath()
			if job {
				p = id.jobPath()
			}
			var out map[string]any
			err = getARM(t, p, &out)
			if err == nil {
				return fmt.Errorf("%s %s still exists after destroy", resourceType, rs.Primary.ID)
			}
			if !isNotFound(err) {
				return fmt.Errorf("%s %s: %v", resourceType, rs.Primary.ID, err)
			}
		}
		return nil
	}
}

// checkAPI runs f on the ARM JSON of the resource at address.
func checkAPI[T any](t *testing.T, address string, job bool, f func(T) error) func(*terraform.State) error {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[address]
		if !ok {
			return fmt.Errorf("%s is not in the state", address)
		}
		id, err := parseARMID(rs.Primary.ID, job)
		if err != nil {
			return err
		}
		p := id.collectionPath()
		if job {
			p = id.jobPath()
		}
		var out T
		if err := getARM(t, p, &out); err != nil {
			return err
		}
		return f(out)
	}
}

// uniq makes names unique per test, so that parallel tests never meet.
func uniq(t *testing.T, s string) string {
	return s + "-" + regexp.MustCompile(`[^a-zA-Z0-9]+`).ReplaceAllString(t.Name(), "")
}
