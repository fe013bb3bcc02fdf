package catalog

import (
	"context"
	"slices"
	"testing"

	"sked/models"
	"sked/models/testdb"
)

// TestEveryOpIsAnAuditAction checks that the audit log's CHECK constraint
// accepts every kind of change the catalog makes (a new Op needs a
// migration extending it), and the store's own actions.
func TestEveryOpIsAnAuditAction(t *testing.T) {
	store := testdb.Store(t)
	ops := []Op{OpCreateWorkspace, OpPutChannel, OpDeleteChannel, OpTestChannel, OpPutAlertRule, OpDeleteAlertRule}
	for op := range opRoles {
		ops = append(ops, op)
	}
	actions := []string{models.AuditJobComplete, models.AuditJobFault, models.AuditTokenCreate, models.AuditTokenRevoke,
		models.AuditUserCreate, models.AuditUserDisable, models.AuditUserEnable, models.AuditUserPassword}
	for _, op := range ops {
		actions = append(actions, string(op))
		if !slices.Contains(models.AuditActions, string(op)) {
			t.Errorf("the Op %s is not in models.AuditActions", op)
		}
	}
	for _, a := range models.AuditActions {
		if !slices.Contains(actions, a) {
			actions = append(actions, a)
		}
	}
	for _, a := range actions {
		err := store.Audited(context.Background(), "test", func(*models.Store) ([]models.AuditEntry, error) {
			return []models.AuditEntry{{ActorKind: models.ActorSystem, Action: a}}, nil
		})
		if err != nil {
			t.Errorf("action %s: %v", a, err)
		}
	}
}
