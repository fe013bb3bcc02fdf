package handlers

import (
	"context"
	"encoding/json"
	"time"

	"sked/models"
	"sked/models/caldef"
	"sked/models/jobdef"
	"sked/scheduler/action"
	"sked/scheduler/catalog"
)

// The write service as the handlers use it: every change of a collection,
// a job, a job's state, a calendar, a channel or alert rule, or an import
// goes through one of these (the catalog, *catalog.Catalog, satisfies them
// all; *catalog.Imports is backgroundImports), with the actor of the
// request (actorOf). Accounts, members and workspaces are changed through
// the catalog itself (Server.catalog), a user's time zone and sessions
// through the store; reads may use the store.

// collectionWriter changes collections: the ARM API and the collection
// pages and form.
type collectionWriter interface {
	PutCollection(ctx context.Context, actor catalog.Actor, ref models.CollectionRef, body []byte) (*models.CollectionRow, bool, error)
	PatchCollection(ctx context.Context, actor catalog.Actor, ref models.CollectionRef, body []byte) (*models.CollectionRow, error)
	PutCollectionWrite(ctx context.Context, actor catalog.Actor, ref models.CollectionRef, body []byte) (*catalog.CollectionWrite, error)
	PatchCollectionWrite(ctx context.Context, actor catalog.Actor, ref models.CollectionRef, body []byte) (*catalog.CollectionWrite, error)
	SetCollectionState(ctx context.Context, actor catalog.Actor, ref models.CollectionRef, state models.CollectionState) (*models.CollectionRow, error)
	SetCollectionStateNote(ctx context.Context, actor catalog.Actor, ref models.CollectionRef, state models.CollectionState, note string) (*models.CollectionRow, error)
	DeleteCollection(ctx context.Context, actor catalog.Actor, ref models.CollectionRef) error
	NewSigningSecret(ctx context.Context, actor catalog.Actor, ref models.CollectionRef, overlap time.Duration) (*catalog.NewSigning, error)
	RemoveSigningSecret(ctx context.Context, actor catalog.Actor, ref models.CollectionRef) error
}

// jobWriter changes jobs and their state and runs them now: the ARM API,
// the job pages and the job form.
type jobWriter interface {
	PutJob(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, name string, body []byte) (*models.Job, bool, error)
	PatchJob(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, name string, body []byte) (*models.Job, error)
	// CreateJob and EditJob are the job form's saves.
	CreateJob(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, name string, body []byte) (*models.Job, error)
	EditJob(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, name string, body []byte) (*models.Job, bool, error)
	DeleteJob(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, name string) error
	EnableJob(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, job *models.Job) error
	DisableJob(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, job *models.Job) error
	DisableJobNote(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, job *models.Job, note string) error
	RunNow(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, job *models.Job) (int64, error)
	// RunNowWith is RunNow with changes of the request for this one run
	// (SPEC §16.4).
	RunNowWith(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, job *models.Job, changes *jobdef.RunChanges) (int64, error)
	Rerun(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, job *models.Job, historyID int64) (int64, error)
	// Backfill and CancelBackfill are the backfills of a job (SPEC §16.3).
	Backfill(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, job *models.Job, in catalog.BackfillInput) (*catalog.BackfillResult, error)
	CancelBackfill(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, job *models.Job, id int64) (*models.Backfill, error)
	// The bulk actions of the "All jobs" page and POST /api/v1/jobs/bulk.
	BulkJobs(ctx context.Context, actor catalog.Actor, action catalog.BulkAction, jobs []models.BulkJob, note string) (*catalog.BulkResult, error)
	ExportJobs(ctx context.Context, actor catalog.Actor, jobs []models.BulkJob) (json.RawMessage, error)
}

// calendarWriter changes calendars: the calendar API and pages.
type calendarWriter interface {
	PutCalendar(ctx context.Context, actor catalog.Actor, workspaceID, name string, body []byte) (*caldef.Calendar, bool, error)
	PutCalendarVersion(ctx context.Context, actor catalog.Actor, workspaceID, name string, body []byte, version int64) (*caldef.Calendar, bool, error)
	DeleteCalendar(ctx context.Context, actor catalog.Actor, workspaceID, name string) error
	ImportCalendar(ctx context.Context, actor catalog.Actor, in catalog.CalendarImport) (*catalog.CalendarImportReport, error)
}

// notifyWriter changes channels and alert rules and sends test events:
// the notifications API and pages (channels_api.go, alerts_api.go,
// channels_pages.go, alerts_pages.go).
type notifyWriter interface {
	PutChannel(ctx context.Context, actor catalog.Actor, workspaceID, name string, body []byte) (*catalog.SavedChannel, error)
	DeleteChannel(ctx context.Context, actor catalog.Actor, workspaceID, name string) error
	TestChannel(ctx context.Context, actor catalog.Actor, workspaceID, name, baseURL string, sender catalog.Sender) (action.SendResult, error)
	PutAlertRule(ctx context.Context, actor catalog.Actor, workspaceID, name string, body []byte) (*models.AlertRule, bool, error)
	DeleteAlertRule(ctx context.Context, actor catalog.Actor, workspaceID, name string) error
	AddAlertRule(ctx context.Context, actor catalog.Actor, workspaceID string, body []byte) (*models.AlertRule, error)
	WatchJob(ctx context.Context, actor catalog.Actor, coll *models.CollectionRow, job string) (*models.AlertRule, error)
}

// targetWriter changes target limits: the targets API and page.
type targetWriter interface {
	PutTargetLimit(ctx context.Context, actor catalog.Actor, workspaceID, host string, body []byte) (*models.TargetLimit, bool, error)
	DeleteTargetLimit(ctx context.Context, actor catalog.Actor, workspaceID, host string) error
}

// importer imports (or checks) a file of jobs: the import API and page.
type importer interface {
	Import(ctx context.Context, actor catalog.Actor, workspaceID string, target models.CollectionRef,
		file *catalog.ImportFile, opts catalog.ImportOptions) (*catalog.ImportReport, error)
}

// backgroundImports runs the import page's large imports in the
// background (*catalog.Imports).
type backgroundImports interface {
	Begin(actor catalog.Actor, in catalog.BackgroundImport) (*catalog.ImportRun, error)
	Run(id string, actor catalog.Actor) *catalog.ImportRun
}
