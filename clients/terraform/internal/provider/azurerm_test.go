package provider

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"software.sslmate.com/src/go-pkcs12"
)

// azurermDocsConfig is the configuration of azurerm 1.x's documentation
// (website/docs/r/scheduler_job.html.markdown and
// scheduler_job_collection.html.markdown), with `azurerm_scheduler_`
// renamed to `sked_`. Otherwise changed only where it must be:
//   - references to azurerm_resource_group, azurerm_storage_account and
//     azurerm_storage_queue (resources of other Azure services) are
//     literal values;
//   - the monthly example is written as azurerm 1.x itself takes it on
//     Terraform 0.12 and later: monthly_occurrences as blocks, frequency
//     "month" (azurerm refuses "monthly"), and its resource and job renamed
//     (the page reuses "web-recurring-daily", which Terraform refuses twice);
//   - "your_cert.pfx" is a certificate the test makes.
//
// The collection the job examples presuppose (sked_job_collection.example)
// is disabled, so that the examples that run at once do not call out.
const azurermDocsConfig = `
resource "azurerm_scheduler_job_collection" "jobs" {
  name                = "example_job_collection"
  location            = "West US"
  resource_group_name = "tfex-job_collection"
  sku                 = "free"
  state               = "enabled"

  quota {
    max_job_count            = 5
    max_recurrence_interval  = 24
    max_recurrence_frequency = "hour"
  }
}

resource "azurerm_scheduler_job_collection" "example" {
  name                = "tfex-jobs"
  location            = "West US"
  resource_group_name = "tfex-scheduler"
  sku                 = "standard"
  state               = "disabled"
}

resource "azurerm_scheduler_job" "web-once-now" {
  name                = "tfex-web-once-now"
  resource_group_name = "${azurerm_scheduler_job_collection.example.resource_group_name}"
  job_collection_name = "${azurerm_scheduler_job_collection.example.name}"

  # re-enable it each run
  state = "enabled"

  action_web {
    # defaults to get
    url = "http://this.url.fails"
  }

  # default start time is now
}

resource "azurerm_scheduler_job" "web-recurring-daily" {
  name                = "tfex-web-recurring-daily"
  resource_group_name = "${azurerm_scheduler_job_collection.example.resource_group_name}"
  job_collection_name = "${azurerm_scheduler_job_collection.example.name}"

  action_web {
    url    = "https://this.url.fails"
    method = "put"
    body   = "this is some text"

    headers = {
      Content-Type = "text"
    }

    authentication_basic {
      username = "login"
      password = "apassword"
    }
  }

  retry {
    # retry every 5 min a maximum of 10 times
    interval = "00:05:00"
    count    = 10
  }

  recurrence {
    frequency = "day"
    count     = 1000

    # run 4 times an hour every 12 hours
    hours   = [0, 12]
    minutes = [0, 15, 30, 45]
  }

  start_time = "2018-07-07T07:07:07-07:00"
}

resource "azurerm_scheduler_job" "web-recurring-monthly" {
  name                = "tfex-web-recurring-monthly"
  resource_group_name = "${azurerm_scheduler_job_collection.example.resource_group_name}"
  job_collection_name = "${azurerm_scheduler_job_collection.example.name}"

  action_web {
    url = "https://this.url.fails"

    authentication_certificate {
      pfx      = "${filebase64("your_cert.pfx")}"
      password = "cert_password"
    }
  }

  error_action_web {
    url    = "https://this.url.fails"
    method = "put"
    body   = "The job failed"

    headers = {
      "Content-Type" = "text"
    }

    authentication_basic {
      username = "login"
      password = "apassword"
    }
  }

  recurrence {
    frequency = "month"
    count     = 1000

    monthly_occurrences {
      # first Sunday
      day        = "Sunday"
      occurrence = 1
    }
    monthly_occurrences {
      # third Sunday
      day        = "Sunday"
      occurrence = 3
    }
    monthly_occurrences {
      # last Sunday
      day        = "Sunday"
      occurrence = -1
    }
  }

  start_time = "2018-07-07T07:07:07-07:00"
}

resource "azurerm_scheduler_job" "storage-once-now" {
  name                = "tfex-storage-once-now"
  resource_group_name = "${azurerm_scheduler_job_collection.example.resource_group_name}"
  job_collection_name = "${azurerm_scheduler_job_collection.example.name}"

  action_storage_queue {
    storage_account_name = "tfexstorageaccount"
    storage_queue_name   = "tfex-schedulerjob-storagequeue"
    sas_token            = "not-a-real-storage-account-key"
    message              = "storage message"
  }
}
`

// writeTestPFX writes a self-signed certificate with its key as PKCS#12.
func writeTestPFX(t *testing.T, file, password string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(42), Subject: pkix.Name{CommonName: "tfex-client"},
		NotBefore: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pfx, err := pkcs12.Modern.Encode(key, cert, nil, password)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, pfx, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestAzurermConfigurationRenamed applies azurerm 1.x's documented
// configuration renamed to sked_, checks that the next plan is empty and
// what Sked stored, and destroys it.
func TestAzurermConfigurationRenamed(t *testing.T) {
	pfx := filepath.Join(t.TempDir(), "your_cert.pfx")
	writeTestPFX(t, pfx, "cert_password")
	cfg := strings.ReplaceAll(azurermDocsConfig, "azurerm_scheduler_", "sked_")
	cfg = strings.ReplaceAll(cfg, `filebase64("your_cert.pfx")`, fmt.Sprintf("filebase64(%q)", pfx))
	daily := "sked_job.web-recurring-daily"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			checkGone(t, "sked_job", true), checkGone(t, "sked_job_collection", false)),
		Steps: []resource.TestStep{{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("sked_job_collection.jobs", "sku", "free"),
				resource.TestCheckResourceAttr("sked_job_collection.jobs", "quota.0.max_recurrence_interval", "24"),
				resource.TestCheckResourceAttr("sked_job.web-once-now", "action_web.0.method", "Get"),
				resource.TestCheckResourceAttr(daily, "retry.0.interval", "00:05:00"),
				resource.TestCheckResourceAttr(daily, "start_time", "2018-07-07T07:07:07-07:00"),
				resource.TestCheckResourceAttr("sked_job.web-recurring-monthly", "action_web.0.authentication_certificate.0.subject_name", "CN=tfex-client"),
				resource.TestCheckResourceAttrSet("sked_job.web-recurring-monthly", "action_web.0.authentication_certificate.0.thumbprint"),
				resource.TestCheckResourceAttrSet("sked_job.web-recurring-monthly", "action_web.0.authentication_certificate.0.expiration"),
				checkAPI(t, daily, true, func(j armJob) error {
					a := j.Properties.Action
					r := j.Properties.Recurrence
					if a.Request.Method != "PUT" || a.Request.Authentication.Username != "login" || a.RetryPolicy.RetryInterval != "00:05:00" ||
						*a.RetryPolicy.RetryCount != 10 || r.Frequency != "day" || r.Count != 1000 ||
						fmt.Sprint(r.Schedule.Hours, r.Schedule.Minutes) != "[0 12] [0 15 30 45]" {
						return fmt.Errorf("Sked stored %+v / %+v", a, r)
					}
					return nil
				}),
				checkAPI(t, "sked_job.web-recurring-monthly", true, func(j armJob) error {
					a := j.Properties.Action
					if a.Request.Authentication.Type != "ClientCertificate" || a.ErrorAction == nil ||
						a.ErrorAction.Request.Body != "The job failed" || len(j.Properties.Recurrence.Schedule.MonthlyOccurrences) != 3 {
						return fmt.Errorf("Sked stored %+v", j.Properties)
					}
					return nil
				}),
				checkAPI(t, "sked_job.storage-once-now", true, func(j armJob) error {
					q := j.Properties.Action.QueueMessage
					if q == nil || q.StorageAccount != "tfexstorageaccount" || q.Message != "storage message" {
						return fmt.Errorf("Sked stored %+v", j.Properties.Action)
					}
					return nil
				}),
			),
		}},
	})
}
