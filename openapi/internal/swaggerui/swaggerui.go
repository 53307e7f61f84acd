// Package swaggerui embeds the prebuilt assets of Swagger UI (the npm package
// swagger-ui-dist, Apache-2.0, see LICENSE and NOTICE) so that vane's docs
// page works with no network access. update.sh vendors a new version; the
// reasons for this choice are in docs/design/openapi.md.
//
// The JavaScript and CSS are stored gzipped (gzip -9n, reproducible) and
// compressed with zstd (-19), and are served as they are to clients that
// accept either; the others get them decompressed once.
package swaggerui

import "embed"

// Version is the vendored swagger-ui-dist version (also in VERSION).
const Version = "5.35.0"

// FS holds the assets: swagger-ui-bundle.js and swagger-ui.css in gzip
// (.gz) and zstd (.zst), the page's own start-up script init.js, and the
// licence texts.
//
//go:embed swagger-ui-bundle.js.gz swagger-ui-bundle.js.zst swagger-ui.css.gz swagger-ui.css.zst init.js LICENSE NOTICE swagger-ui-bundle.js.LICENSE.txt VERSION
var FS embed.FS
