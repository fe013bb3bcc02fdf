package pgserver

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// This file speaks the few messages of the PostgreSQL frontend/backend
// protocol (version 3) that the package needs without a driver: connect
// over the unix socket with trust authentication, run a simple query.

// pgError is an ErrorResponse from the server.
type pgError struct {
	Severity, Code, Message string
}

func (e *pgError) Error() string {
	return fmt.Sprintf("%s: %s (SQLSTATE %s)", e.Severity, e.Message, e.Code)
}

// SQLSTATE codes the package acts on.
const (
	codeCannotConnectNow  = "57P03" // starting up, shutting down, in recovery
	codeInvalidCatalog    = "3D000" // database does not exist
	codeDuplicateDatabase = "42P04"
)

// isCode reports whether err is a server error with SQLSTATE code.
func isCode(err error, code string) bool {
	var pe *pgError
	return errors.As(err, &pe) && pe.Code == code
}

// pgConn is a connection that has completed startup.
type pgConn struct {
	c net.Conn
	r *bufio.Reader
}

// pgConnect connects to the server on socket as user to database and waits
// until the server is ready for queries. It only supports trust
// authentication. The whole exchange is bounded by ctx (10 s by default).
func pgConnect(ctx context.Context, socket, user, database string) (*pgConn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	_ = c.SetDeadline(deadline)
	conn := &pgConn{c: c, r: bufio.NewReader(c)}

	var body []byte
	body = binary.BigEndian.AppendUint32(body, 3<<16) // protocol 3.0
	for _, kv := range [][2]string{{"user", user}, {"database", database}} {
		body = append(append(body, kv[0]...), 0)
		body = append(append(body, kv[1]...), 0)
	}
	body = append(body, 0)
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(body)+4))
	if _, err := c.Write(append(msg, body...)); err != nil {
		c.Close()
		return nil, err
	}
	for {
		typ, payload, err := conn.read()
		if err != nil {
			c.Close()
			return nil, err
		}
		switch typ {
		case 'R':
			if len(payload) < 4 || binary.BigEndian.Uint32(payload) != 0 {
				c.Close()
				return nil, fmt.Errorf("server asks for authentication (%d), only trust is supported", binary.BigEndian.Uint32(payload))
			}
		case 'E':
			c.Close()
			return nil, parseError(payload)
		case 'Z':
			return conn, nil
		}
	}
}

// exec runs one simple-protocol query and returns the first error the
// server reports.
func (conn *pgConn) exec(sql string) error {
	msg := []byte{'Q'}
	msg = binary.BigEndian.AppendUint32(msg, uint32(4+len(sql)+1))
	msg = append(append(msg, sql...), 0)
	if _, err := conn.c.Write(msg); err != nil {
		return err
	}
	var first error
	for {
		typ, payload, err := conn.read()
		if err != nil {
			return err
		}
		switch typ {
		case 'E':
			if first == nil {
				first = parseError(payload)
			}
		case 'Z':
			return first
		}
	}
}

// close sends Terminate and closes the connection.
func (conn *pgConn) close() {
	_, _ = conn.c.Write([]byte{'X', 0, 0, 0, 4})
	conn.c.Close()
}

func (conn *pgConn) read() (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(conn.r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n < 4 || n > 1<<24 {
		return 0, nil, fmt.Errorf("bad message length %d", n)
	}
	payload := make([]byte, n-4)
	if _, err := io.ReadFull(conn.r, payload); err != nil {
		return 0, nil, err
	}
	return hdr[0], payload, nil
}

func parseError(payload []byte) error {
	e := &pgError{}
	for len(payload) > 1 {
		field := payload[0]
		payload = payload[1:]
		i := 0
		for i < len(payload) && payload[i] != 0 {
			i++
		}
		val := string(payload[:i])
		if i < len(payload) {
			i++
		}
		payload = payload[i:]
		switch field {
		case 'S':
			e.Severity = val
		case 'C':
			e.Code = val
		case 'M':
			e.Message = val
		}
	}
	return e
}

// ping reports whether the server on socket accepts connections: nil when
// it does (also when database does not exist), an error when the socket is
// missing or refuses, or the server is starting up or shutting down.
func ping(ctx context.Context, socket, user, database string) error {
	conn, err := pgConnect(ctx, socket, user, database)
	if err != nil {
		if isCode(err, codeInvalidCatalog) {
			return nil
		}
		return err
	}
	conn.close()
	return nil
}

// execSQL connects to database and runs sql.
func execSQL(ctx context.Context, socket, user, database, sql string) error {
	conn, err := pgConnect(ctx, socket, user, database)
	if err != nil {
		return err
	}
	defer conn.close()
	return conn.exec(sql)
}

// databaseExists reports whether database exists on the server on socket.
func databaseExists(ctx context.Context, socket, database string) (bool, error) {
	conn, err := pgConnect(ctx, socket, superuser, database)
	if isCode(err, codeInvalidCatalog) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	conn.close()
	return true, nil
}
