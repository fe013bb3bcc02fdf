package handlers

import (
	"encoding/json"
	"errors"

	"github.com/labstack/echo/v4"

	"sked/models"
)

// keepStateNote returns the job form's body with the state note of the
// job name of row (SPEC §13.2) when the body names none (the builder has
// no note field): editing a paused job keeps why it is paused (the store
// keeps the note only while the job stays disabled). A body that is not a
// JSON object, a new job or a job without a note is returned as it is.
func (s *Server) keepStateNote(c echo.Context, row *models.CollectionRow, name string, body []byte) ([]byte, error) {
	cur, err := s.store.JobByName(c.Request().Context(), row.ID, name)
	if errors.Is(err, models.ErrNotFound) {
		return body, nil
	} else if err != nil {
		return nil, err
	}
	if cur.StateNote == "" {
		return body, nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || top == nil {
		return body, nil
	}
	// The ARM shape keeps its fields in properties.
	if raw, ok := top["properties"]; ok {
		var props map[string]json.RawMessage
		if json.Unmarshal(raw, &props) != nil || props == nil {
			return body, nil
		}
		if !withNote(props, cur.StateNote) {
			return body, nil
		}
		top["properties"], _ = json.Marshal(props)
	} else if !withNote(top, cur.StateNote) {
		return body, nil
	}
	return json.Marshal(top)
}

// withNote sets stateNote in props to note unless props names one, and
// reports whether it did.
func withNote(props map[string]json.RawMessage, note string) bool {
	if _, ok := props["stateNote"]; ok {
		return false
	}
	props["stateNote"], _ = json.Marshal(note)
	return true
}
