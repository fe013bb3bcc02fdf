package web

import "strings"

// RoleChoice is one role of a select: its value and its label.
type RoleChoice struct {
	Value, Label string
}

// RoleChoices are the roles of a workspace, lowest first (SPEC §13.4).
var RoleChoices = []RoleChoice{
	{"reader", "Reader: sees jobs and history"},
	{"operator", "Operator: also runs, enables and disables"},
	{"editor", "Editor: also creates, changes, deletes, imports"},
	{"owner", "Owner: also members and the workspace"},
}

// roleLabel is a role's name with a capital letter: "Reader".
func roleLabel(role string) string {
	if role == "" {
		return ""
	}
	return strings.ToUpper(role[:1]) + role[1:]
}

// Can is what the viewer may do in the workspace of a page, from the
// viewer's role there (the presenter's input): controls the viewer may
// not use are not shown. The zero Can allows nothing beyond seeing.
type Can struct {
	// Run: run now, enable and disable (operator and up).
	Run bool
	// Edit: create, change, delete, import and export (editor and up).
	Edit bool
	// Manage: members, roles, rename and delete the workspace (owner).
	Manage bool
}

// CanFor is the Can of role ("reader" … "owner"; anything else allows
// nothing).
func CanFor(role string) Can {
	rank := map[string]int{"reader": 1, "operator": 2, "editor": 3, "owner": 4}[role]
	return Can{Run: rank >= 2, Edit: rank >= 3, Manage: rank >= 4}
}

// Allow hides the buttons of the job status that can does not allow: run
// now, enable and disable (and the note form) need Run; delete needs Edit.
func (s *JobStatus) Allow(can Can) {
	s.CanRun = s.CanRun && can.Run
	s.CanEnable = s.CanEnable && can.Run
	s.CanDisable = s.CanDisable && can.Run
	s.CanDelete = s.CanDelete && can.Edit
	if !can.Run {
		s.NoteEdit = nil
	}
}

// Allow hides the enable and disable buttons and the note form of the
// collection status unless can allows Run.
func (s *CollectionStatus) Allow(can Can) {
	s.CanEnable = s.CanEnable && can.Run
	s.CanDisable = s.CanDisable && can.Run
	if !can.Run {
		s.NoteEdit = nil
	}
}
