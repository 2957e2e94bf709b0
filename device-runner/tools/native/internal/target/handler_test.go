package target

import (
	"net/http/httptest"
	"testing"
)

// Alt-Svc goes to h3 arms' requests only (transport.py's ServerOptions.common_headers).
func TestAltSvcOnlyForH3Arms(t *testing.T) {
	h := &Handler{Content: testContent(), AltSvc: AltSvcFor(8443)}
	for _, tc := range []struct{ arm, want string }{
		{"", ""}, {"h2", ""}, {"h1", ""}, {"grpc", ""}, {"h3", `h3=":8443"; ma=86400`}, {" H3 ", `h3=":8443"; ma=86400`},
	} {
		req := httptest.NewRequest("GET", "/healthz", nil)
		if tc.arm != "" {
			req.Header.Set(ArmProtocolHeader, tc.arm)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := rec.Header().Get("Alt-Svc"); got != tc.want || rec.Code != 200 {
			t.Errorf("arm %q: %d alt-svc %q, want %q", tc.arm, rec.Code, got, tc.want)
		}
	}
}
