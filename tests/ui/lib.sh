# SPDX-License-Identifier: MIT
#
# tests/ui/lib.sh - what the ui tier's scripts share, sourced (bash):
#   ok / notok / check DESCRIPTION [COMMAND...]   one "ok - " or "not ok - "
#                       line each, counted in passed and failed
#   ui_chrome PROFILE_DIR WIDTH,HEIGHT ARGS...    headless Chromium, kept
#                       off the network (no updates, sync or QUIC) so that
#                       it reads only the files or the 127.0.0.1 server the
#                       checks give it; --no-sandbox because CI runs as root;
#                       killed after 60 s (a page that waits on a dialog
#                       would hold the tier forever)
passed=0 failed=0 skipped=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
notok() { echo "not ok - $*"; failed=$((failed + 1)); }
check() { local d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }

ui_chrome() {
	local profile=$1 size=$2
	shift 2
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--hide-scrollbars --user-data-dir="$profile" --window-size="$size" "$@"
}
