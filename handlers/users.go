package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"sked/models"
	"sked/web"
)

// usersPage lists every user with the add form (administrators only).
func (s *Server) usersPage(c echo.Context) error {
	v, err := s.usersView(c.Request().Context(), currentUser(c).ID)
	if err != nil {
		return err
	}
	return s.renderUsers(c, http.StatusOK, v)
}

// createUser adds a user (a member of the default workspace, its owner
// when an administrator). Problems re-render the form with its errors
// (422); passwords are never echoed back.
func (s *Server) createUser(c echo.Context) error {
	ctx := c.Request().Context()
	admin := currentUser(c)
	form := web.NewUserForm{Username: c.FormValue("username"), Admin: c.FormValue("admin") != ""}
	password, confirm := c.FormValue("password"), c.FormValue("confirm")
	in := models.NewUser{Username: form.Username, Password: password, Admin: form.Admin}

	errs := fieldErrors(in.Validate())
	if password != "" && confirm != password {
		if errs == nil {
			errs = web.FieldErrors{}
		}
		errs["confirm"] = "The repeated password does not match."
	}
	var message string
	if errs == nil {
		user, err := s.catalog.CreateUser(ctx, actorOf(c), in)
		if err == nil {
			kind := "User"
			if user.IsAdmin {
				kind = "Administrator"
			}
			message = kind + " " + user.Username + " added."
			s.log.Info("user added", "user", user.Username, "admin", user.IsAdmin, "by", admin.Username)
		} else if errs = fieldErrors(err); errs == nil {
			return err
		}
	}
	v, err := s.usersView(ctx, admin.ID)
	if err != nil {
		return err
	}
	if errs != nil {
		form.Errors = errs
		v.Form = form
		return s.renderUsers(c, statusUnprocessable, v)
	}
	v.Message = message
	return s.renderUsers(c, http.StatusOK, v)
}

// disableUser disables an account; administrators cannot disable their
// own (422 with the reason on the row).
func (s *Server) disableUser(c echo.Context) error { return s.setDisabled(c, true) }

// enableUser enables an account again.
func (s *Server) enableUser(c echo.Context) error { return s.setDisabled(c, false) }

func (s *Server) setDisabled(c echo.Context, disabled bool) error {
	ctx := c.Request().Context()
	admin := currentUser(c)
	id, err := accountPathID(c, "id")
	if err != nil {
		return err
	}
	if disabled && id == admin.ID {
		v, err := s.usersView(ctx, admin.ID)
		if err != nil {
			return err
		}
		v.setRow(id, func(r *web.UserRow) {
			r.Error = "You cannot disable your own account: another administrator must do it, so that Sked always keeps an administrator who can sign in."
		})
		return s.renderUsers(c, statusUnprocessable, v)
	}
	user, err := s.store.UserByID(ctx, id)
	if err != nil {
		return err
	}
	if err := s.catalog.SetUserDisabled(ctx, actorOf(c), user, disabled); err != nil {
		return err
	}
	v, err := s.usersView(ctx, admin.ID)
	if err != nil {
		return err
	}
	if disabled {
		v.Message = user.Username + " disabled: they are signed out everywhere, cannot sign in, and their API tokens are refused."
	} else {
		v.Message = user.Username + " enabled."
	}
	s.log.Info("user disabled changed", "user", user.Username, "disabled", disabled, "by", admin.Username)
	return s.renderUsers(c, http.StatusOK, v)
}

// resetPassword sets a user's password; a password the rules refuse is
// shown on the row's form (422).
func (s *Server) resetPassword(c echo.Context) error {
	ctx := c.Request().Context()
	admin := currentUser(c)
	id, err := accountPathID(c, "id")
	if err != nil {
		return err
	}
	user, err := s.store.UserByID(ctx, id)
	if err != nil {
		return err
	}
	err = s.catalog.ResetPassword(ctx, actorOf(c), user, c.FormValue("password"))
	errs := fieldErrors(err)
	if err != nil && errs == nil {
		return err
	}
	v, verr := s.usersView(ctx, admin.ID)
	if verr != nil {
		return verr
	}
	if errs != nil {
		v.setRow(id, func(r *web.UserRow) { r.PasswordError = errs["password"] })
		return s.renderUsers(c, statusUnprocessable, v)
	}
	v.Message = "Password of " + user.Username + " reset."
	s.log.Info("password reset", "user", user.Username, "by", admin.Username)
	return s.renderUsers(c, http.StatusOK, v)
}

func (s *Server) usersView(ctx context.Context, self int64) (usersView, error) {
	users, err := s.store.Users(ctx)
	if err != nil {
		return usersView{}, err
	}
	v := usersView{}
	now := s.clock()
	for _, u := range users {
		v.Users = append(v.Users, web.UserRow{
			ID: u.ID, Username: u.Username, IsAdmin: u.IsAdmin, Disabled: u.Disabled,
			Self: u.ID == self, Created: accountTimeView(u.CreatedAt, now),
		})
	}
	return v, nil
}

// usersView is web.UsersView with a way to mark one row.
type usersView struct{ web.UsersView }

func (v *usersView) setRow(id int64, f func(*web.UserRow)) {
	for i := range v.Users {
		if v.Users[i].ID == id {
			f(&v.Users[i])
		}
	}
}

// renderUsers sends the users section to htmx and the whole page
// otherwise.
func (s *Server) renderUsers(c echo.Context, status int, v usersView) error {
	if isHTMX(c) {
		return render(c, status, web.UsersSection(csrfToken(c), v.UsersView))
	}
	return render(c, status, web.UsersPage(page(c, "Users"), v.UsersView))
}
