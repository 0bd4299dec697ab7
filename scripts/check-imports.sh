#!/usr/bin/env bash
# The module seams of the design: each target may import only the modules below it. The
# activation domain (TokenActivation) and the onboarding core see the store only through
# WalletModel's protocol: neither imports a driver (Storage, PostgresStorage) or a database
# library; only the application (TokenctlApp) chooses a driver. The configuration
# (TokenctlConfiguration) reads and checks settings without any driver.
# Reads the import lines of every Swift file under Sources/ and fails on any other.
set -euo pipefail
cd "$(dirname "$0")/.."

# target: allowed imports (system and language modules are always allowed).
declare -A allowed=(
  [ErrorCodes]=""
  [HTTPTransport]="CCurl ErrorCodes Logging"
  [WalletModel]="ErrorCodes Crypto Logging"
  [Storage]="CSQLite ErrorCodes WalletModel GRDB GRDBSQLite Logging"
  [PostgresStorage]="ErrorCodes WalletModel PostgresNIO Logging NIOCore NIOPosix NIOSSL"
  [PowerAuth]="Crypto _CryptoExtras"
  [MPin]="Crypto"
  [OnboardingCore]="ErrorCodes PowerAuth MPin HTTPTransport WalletModel Logging Crypto ZIPFoundation"
  [TokenActivation]="CMalloc ErrorCodes OnboardingCore HTTPTransport WalletModel Logging"
  [TokenctlConfiguration]="ErrorCodes TokenActivation OnboardingCore HTTPTransport WalletModel Logging Configuration"
  [TokenctlApp]="ErrorCodes TokenctlConfiguration TokenActivation OnboardingCore HTTPTransport WalletModel Storage PostgresStorage Logging"
  [Sandbox]="PowerAuth MPin NIOCore NIOPosix NIOHTTP1 NIOConcurrencyHelpers Crypto _CryptoExtras ZIPFoundation"
  [ServiceAPI]="ErrorCodes WalletModel TokenActivation"
  [TokenctlService]="ServiceAPI ErrorCodes TokenctlConfiguration TokenctlApp TokenActivation WalletModel HTTPTransport Hummingbird HummingbirdCore HummingbirdTLS HTTPTypes NIOCore NIOPosix NIOSSL NIOExtras NIOHTTP1 NIOHTTPTypesHTTP1 Prometheus ServiceLifecycle UnixSignals Logging"
  [CommandLine]="ErrorCodes TokenctlConfiguration TokenctlApp TokenActivation OnboardingCore WalletModel ArgumentParser Logging"
  [ServiceCommand]="CommandLine ErrorCodes TokenctlConfiguration TokenctlApp TokenctlService ArgumentParser Logging"
  [tokenctl]="CommandLine ErrorCodes TokenctlConfiguration TokenctlApp TokenActivation OnboardingCore WalletModel ServiceCommand ArgumentParser Logging"
  [tokenctl-sandbox]="CommandLine ErrorCodes TokenctlConfiguration TokenctlApp TokenActivation OnboardingCore WalletModel Sandbox ArgumentParser Logging"
)
always="Foundation Glibc Dispatch Synchronization SystemPackage"

failed=0
for target in "${!allowed[@]}"; do
  [ -d "Sources/$target" ] || continue
  while IFS=: read -r file _ line; do
    module=$(sed -E 's/^(@[A-Za-z_]+ )*import (struct |class |enum |func )?([A-Za-z0-9_]+).*/\3/' <<<"$line")
    case " ${allowed[$target]} $always " in
      *" $module "*) ;;
      *) echo "check-imports: $file imports $module, which $target may not use" >&2; failed=1 ;;
    esac
  done < <(grep -rnE '^(@[A-Za-z_]+ )*import ' "Sources/$target" --include=*.swift)
done
for target in Sources/*/; do
  name=$(basename "$target")
  [ -n "${allowed[$name]+set}" ] || [ "$name" = CCurl ] || [ "$name" = CMalloc ] || [ "$name" = CSQLite ] || { echo "check-imports: $name has no rule" >&2; failed=1; }
done
[ "$failed" = 0 ] && echo "check-imports: every import follows the module layout"
exit "$failed"
