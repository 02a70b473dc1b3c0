package e2b

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCreateAnswersChecked: the sandbox id and domain E2B answers with
// name the host the access token goes to, so they must be host names; an
// error body that is not JSON (a proxy's page) is carried, shortened.
func TestCreateAnswersChecked(t *testing.T) {
	for _, c := range []struct {
		status int
		body   string
		want   string
	}{
		{201, `{"sandboxID":"i1/../x","envdAccessToken":"t","domain":"e2b.app"}`, "bad sandbox id"},
		{201, `{"sandboxID":"i1","envdAccessToken":"t","domain":"evil.example@e2b.app"}`, "bad domain"},
		{201, `{"sandboxID":"i1","envdAccessToken":"t","domain":"e2b.app/x"}`, "bad domain"},
		{201, `{"sandboxID":"","envdAccessToken":"t"}`, "bad sandbox id"},
		{201, `not json`, "a bad answer from E2B"},
		{502, `<html>` + strings.Repeat("x", 5000) + `</html>`, "E2B answered 502: <html>xxx"},
		{400, `{"code":400,"message":"Timeout must be between 1 and 3600 seconds"}`, "E2B answered 400: Timeout must be between 1 and 3600 seconds"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.status)
			w.Write([]byte(c.body))
		}))
		a := newAPI(srv.URL, "k", http.DefaultClient)
		_, err := a.create(context.Background(), createRequest{TemplateID: "base", Timeout: 1})
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d %.40s: %v, want %q", c.status, c.body, err, c.want)
		}
		if err != nil && len(err.Error()) > 800 {
			t.Errorf("an error of %d bytes", len(err.Error()))
		}
	}
	if _, err := newAPI("http://127.0.0.1:1", "k", http.DefaultClient).info(context.Background(), "i1"); err == nil {
		t.Error("no error from a closed port")
	}
}
