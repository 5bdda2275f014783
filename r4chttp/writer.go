package r4chttp

import (
	"bufio"
	"io"
	"net"
	"net/http"
)

// The ResponseWriter a Handler gives its handler: it records the status
// and passes everything else through.
var (
	_ http.ResponseWriter = (*serverCall)(nil)
	_ http.Flusher        = (*serverCall)(nil)
	_ http.Hijacker       = (*serverCall)(nil)
	_ io.ReaderFrom       = (*serverCall)(nil)
)

// Header returns the header map of the underlying ResponseWriter.
func (sc *serverCall) Header() http.Header { return sc.rw.Header() }

// WriteHeader records the first final status (1xx informational
// responses, 101 excepted, are passed on without being recorded) and
// passes it on.
func (sc *serverCall) WriteHeader(code int) {
	if !sc.wrote && (code >= 200 || code == http.StatusSwitchingProtocols) {
		sc.wrote = true
		sc.status = code
	}
	sc.rw.WriteHeader(code)
}

// Write writes b, with a 200 status if none was written.
func (sc *serverCall) Write(b []byte) (int, error) {
	sc.begin()
	return sc.rw.Write(b)
}

// ReadFrom copies src to the response, through the underlying
// ResponseWriter's ReadFrom when it has one (net/http's uses sendfile).
func (sc *serverCall) ReadFrom(src io.Reader) (int64, error) {
	sc.begin()
	if rf, ok := sc.rw.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(writerOnly{sc.rw}, src)
}

// Flush sends what was written so far to the client (with a 200 status if
// none was written), if the underlying ResponseWriter can.
func (sc *serverCall) Flush() { _ = sc.FlushError() }

// FlushError is Flush that returns the error of the underlying
// ResponseWriter (http.ErrNotSupported when it cannot flush), as
// http.ResponseController.Flush does.
func (sc *serverCall) FlushError() error {
	sc.begin()
	switch f := sc.rw.(type) {
	case interface{ FlushError() error }:
		return f.FlushError()
	case http.Flusher:
		f.Flush()
		return nil
	}
	return http.NewResponseController(sc.rw).Flush()
}

// Hijack takes over the connection, if the underlying ResponseWriter
// allows (an HTTP/1 server's does; HTTP/2's returns
// http.ErrNotSupported). A hijacked request holds its slot until the
// handler returns and then counts as a success.
func (sc *serverCall) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	var (
		c   net.Conn
		brw *bufio.ReadWriter
		err error
	)
	if hj, ok := sc.rw.(http.Hijacker); ok {
		c, brw, err = hj.Hijack()
	} else {
		c, brw, err = http.NewResponseController(sc.rw).Hijack()
	}
	if err == nil {
		sc.hijacked = true
	}
	return c, brw, err
}

// Unwrap returns the underlying ResponseWriter, for
// http.ResponseController (SetReadDeadline, SetWriteDeadline,
// EnableFullDuplex).
func (sc *serverCall) Unwrap() http.ResponseWriter { return sc.rw }

func (sc *serverCall) begin() {
	if !sc.wrote {
		sc.wrote = true
		sc.status = http.StatusOK
	}
}

// writerOnly hides every method of a Writer but Write (so that io.Copy
// does not loop back to ReadFrom).
type writerOnly struct{ io.Writer }
