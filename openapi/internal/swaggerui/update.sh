#!/usr/bin/env bash
# update.sh VERSION: vendor Swagger UI's prebuilt assets from the npm package
# swagger-ui-dist, for the offline docs page.
#
# Only the files the page loads are kept, gzipped reproducibly (gzip -9n) and
# compressed with zstd (-19, which stays within the 8 MB window RFC 8878
# allows for HTTP), plus the licence texts: vane serves each coding as it
# is stored, and never compresses or decompresses them per request. The npm registry's own integrity hash of the tarball is
# checked before anything is unpacked. Review the diff, then run the /docs
# tests (go test ./openapi/...) before committing.
set -euo pipefail
version="${1:?usage: update.sh VERSION (e.g. 5.35.0)}"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
integrity="$(npm view "swagger-ui-dist@$version" dist.integrity)"
tarball="$(npm pack --silent "swagger-ui-dist@$version")"
got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$got" != "$integrity" ]; then
	echo "integrity mismatch: registry says $integrity, tarball is $got" >&2
	exit 1
fi
tar xzf "$tarball"
for f in swagger-ui-bundle.js swagger-ui.css; do
	gzip -9n <"package/$f" >"$here/$f.gz"
	zstd -19 -q -f -o "$here/$f.zst" "package/$f"
done
cp package/LICENSE package/NOTICE package/swagger-ui-bundle.js.LICENSE.txt "$here/"
printf '%s\n%s\n' "$version" "$integrity" >"$here/VERSION"
echo "swagger-ui-dist $version vendored into $here"
