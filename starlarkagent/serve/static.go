package serve

import (
	"embed"
	"io/fs"
	"net/http"
)

// webFiles is the web page, served at / without a token (the page asks
// for the token and sends it with its API calls).
//
//go:embed web
var webFiles embed.FS

// staticHandler serves the files of web/ at /.
func staticHandler() http.Handler {
	sub, err := fs.Sub(webFiles, "web")
	if err != nil {
		panic(err) // the embed directive guarantees the directory
	}
	return http.FileServerFS(sub)
}
