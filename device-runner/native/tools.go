//go:build tools

package native

import _ "github.com/quic-go/quic-go/http3"
