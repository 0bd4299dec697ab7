#!/usr/bin/env bash
# Builds the Debian packages of tokenctl with dpkg-deb from a release build. tokenctl:
#   /usr/bin/tokenctl (with tokenctl-serve, a link to it), tokenctl-handler; the systemd units; sysusers.d and
#   tmpfiles.d entries; /etc/tokenctl/config.json (a conffile: the production example, whose
#   placeholders `tokenctl config check` names); a man page per subcommand; bash, zsh and fish
#   completions; the x-scheme-handler .desktop file. Depends: is computed from the
#   executables' shared libraries and the libcurl they open at run time (dpkg-shlibdeps).
# tokenctl-sandbox, for test and demo hosts (a production host has no use for a simulator that
#   approves any token): /usr/bin/tokenctl-sandbox, which `tokenctl sandbox` and `tokenctl
#   demo` run, and tokenctl-sandbox.service.
# Usage: scripts/make-deb.sh BUILD_DIR OUTPUT_DIR   (prints the two packages' paths last)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:?usage: scripts/make-deb.sh BUILD_DIR OUTPUT_DIR}" && pwd)
output=${2:?usage: scripts/make-deb.sh BUILD_DIR OUTPUT_DIR}
version=$("$build/tokenctl" --version)
architecture=$(dpkg --print-architecture)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/tokenctl_${version}_$architecture
install -d "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/usr/lib/sysusers.d" \
  "$root/usr/lib/tmpfiles.d" "$root/etc/tokenctl" "$root/usr/share/man/man1" "$root/usr/share/doc/tokenctl" \
  "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
  "$root/usr/share/fish/vendor_completions.d" "$root/usr/share/applications"

install -m 755 "$build/tokenctl" "$root/usr/bin/tokenctl"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/tokenctl"
# The service's name: the one executable runs the service when started by it.
ln -s tokenctl "$root/usr/bin/tokenctl-serve"
install -m 755 Deeplinks/tokenctl-handler "$root/usr/bin/tokenctl-handler"
install -m 644 Config/systemd/tokenctl.service Config/systemd/tokenctl.socket Config/systemd/tokenctl-handler@.service \
  Config/systemd/tokenctl-checkpoint.service Config/systemd/tokenctl-checkpoint.timer "$root/lib/systemd/system/"
install -m 644 Config/debian/tokenctl.sysusers "$root/usr/lib/sysusers.d/tokenctl.conf"
install -m 644 Config/debian/tokenctl.tmpfiles "$root/usr/lib/tmpfiles.d/tokenctl.conf"
install -m 644 Config/production.example.json "$root/etc/tokenctl/config.json"
sed 's#^Exec=tokenctl-handler#Exec=/usr/bin/tokenctl-handler#' Deeplinks/tokenctl-handler.desktop > "$root/usr/share/applications/tokenctl-handler.desktop"
chmod 644 "$root/usr/share/applications/tokenctl-handler.desktop"

scripts/make-manual.sh "$build" "$work/man" > /dev/null
for page in "$work"/man/*.1; do gzip -9n < "$page" > "$root/usr/share/man/man1/$(basename "$page").gz"; done
# Completion scripts are sourced, not run: no #! line.
"$build/tokenctl" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/tokenctl"
"$build/tokenctl" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_tokenctl"
"$build/tokenctl" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/tokenctl.fish"

# The copyright file and the changelog of package $2 in the tree $1.
documents() {
  install -d "$1/usr/share/doc/$2"
  install -m 644 Config/debian/copyright "$1/usr/share/doc/$2/copyright"
  {
    echo "$2 ($version) unstable; urgency=medium"
    echo
    echo "  * $2 $version; the changes are in CHANGELOG.md of the source."
    echo
    echo " -- tokenctl maintainers <maintainers@tokenctl.org>  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
  } | gzip -9n > "$1/usr/share/doc/$2/changelog.gz"
}
documents "$root" tokenctl
# The user documentation beside it: the guide, operations, the exit codes, the API, the
# README and the whole changelog (compressed as Debian's policy asks of larger texts).
for document in README.md docs/guide.md docs/operations.md docs/exit-codes.md docs/openapi.yaml CHANGELOG.md; do
  name=$(basename "$document")
  [ "$name" = CHANGELOG.md ] && name=changelog.md
  gzip -9nc "$document" > "$root/usr/share/doc/tokenctl/$name.gz"
done
for script in postinst prerm postrm; do install -m 755 "Config/debian/$script" "$root/DEBIAN/$script"; done
echo /etc/tokenctl/config.json > "$root/DEBIAN/conffiles"

# Depends: from the executables' shared libraries, as dpkg-shlibdeps reads them.
mkdir -p "$work/source/debian"
printf 'Source: tokenctl\n\nPackage: tokenctl\nArchitecture: any\n' > "$work/source/debian/control"
# libcurl is not linked but opened when a command first sends (dlopen, Sources/CCurl/shim.h):
# a stub that links it and uses the functions tokenctl looks up stands in for that, so its
# package and lowest version come from libcurl's symbols file like the others'.
functions=$(grep -o 'TOKENCTL_CURL_BIND([a-z_]*, "[a-z_]*")' Sources/CCurl/shim.h | sed 's/.*"\(.*\)")/\1/' | sort -u)
{
  echo '#include <curl/curl.h>'
  echo 'void *const used[] = {'
  for function in $functions; do echo "  (void *)$function,"; done
  echo '};'
  echo 'int main(void) { return used[0] == 0; }'
} > "$work/libcurl-stub.c"
cc -o "$work/libcurl-stub" "$work/libcurl-stub.c" -Wl,--no-as-needed $(pkg-config --libs libcurl)
shlibdeps() { (cd "$work/source" && dpkg-shlibdeps -O "$@" 2>/dev/null | sed -n 's/^shlibs:Depends=//p'); }
depends=$(shlibdeps "$root/usr/bin/tokenctl" "$work/libcurl-stub")
case "$depends" in *libcurl*) ;; *) echo "make-deb: libcurl is missing from Depends: $depends" >&2; exit 1;; esac
[ -n "$depends" ] || { echo "make-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

cat > "$root/DEBIAN/control" <<CONTROL
Package: tokenctl
Version: $version
Architecture: $architecture
Maintainer: tokenctl maintainers <maintainers@tokenctl.org>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends, systemd, curl
Section: net
Priority: optional
Description: activates push-provisioned payment tokens
 tokenctl takes the deeplink a card wallet opens the issuer's app with, finds
 the pass record in its wallet, asks the token management platform (MDES
 through Verestro's TMP) to activate the token, and audits every step. It
 also hosts the onboarding core that decides whether a user may approve
 activations: PowerAuth device activation, activation with OTP, identity
 verification and the PIN app login.
 .
 This package holds the command (tokenctl), the resident service (tokenctl
 serve, supervised by systemd through tokenctl.socket and tokenctl.service)
 and the deeplink handler. The loopback simulator and the demo are in the
 tokenctl-sandbox package.
CONTROL

# The sandbox's package.
sandbox_root=$work/tokenctl-sandbox_${version}_$architecture
install -d "$sandbox_root/DEBIAN" "$sandbox_root/usr/bin" "$sandbox_root/lib/systemd/system"
install -m 755 "$build/tokenctl-sandbox" "$sandbox_root/usr/bin/tokenctl-sandbox"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$sandbox_root/usr/bin/tokenctl-sandbox"
install -m 644 Config/systemd/tokenctl-sandbox.service "$sandbox_root/lib/systemd/system/"
# The pages of the commands it runs go with it.
install -d "$sandbox_root/usr/share/man/man1"
mv "$root/usr/share/man/man1/tokenctl-sandbox.1.gz" "$root/usr/share/man/man1/tokenctl-demo.1.gz" "$sandbox_root/usr/share/man/man1/"
documents "$sandbox_root" tokenctl-sandbox
for script in postinst prerm postrm; do install -m 755 "Config/debian/sandbox.$script" "$sandbox_root/DEBIAN/$script"; done
sandbox_depends=$(shlibdeps "$sandbox_root/usr/bin/tokenctl-sandbox")
[ -n "$sandbox_depends" ] || { echo "make-deb: dpkg-shlibdeps found no dependencies of tokenctl-sandbox" >&2; exit 1; }
cat > "$sandbox_root/DEBIAN/control" <<CONTROL
Package: tokenctl-sandbox
Version: $version
Architecture: $architecture
Maintainer: tokenctl maintainers <maintainers@tokenctl.org>
Installed-Size: $(du -sk --exclude=DEBIAN "$sandbox_root" | cut -f1)
Depends: $sandbox_depends, tokenctl (= $version), systemd
Section: net
Priority: optional
Description: loopback simulator and demo for tokenctl
 The loopback simulator of every peer tokenctl talks to: the token
 management platform (TMP), the PowerAuth and onboarding servers, identity
 verification and MIRACL's PIN login. Token references with a marker get a
 documented behaviour (declined, failed, slow), like a payment sandbox's
 test cards.
 .
 This package holds tokenctl-sandbox, which "tokenctl sandbox" and
 "tokenctl demo" run, and tokenctl-sandbox.service (installed disabled).
 Install it on test and demo hosts, not on production hosts.
CONTROL

mkdir -p "$output"
for tree in "$root" "$sandbox_root"; do
  (cd "$tree" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$tree/DEBIAN/md5sums"
  find "$tree" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
  package=$output/$(basename "$tree").deb
  dpkg-deb --root-owner-group -Zxz --build "$tree" "$package" > /dev/null
  echo "$package"
done
