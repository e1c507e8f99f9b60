#!/usr/bin/env bash
# Checks the shell completions in contrib/completion/ against the binary just built:
#   bash: `dcukit <TAB>` offers the commands, `dcukit port <TAB>` its subcommands, an option
#         prefix completes from that command's --help, and nothing is offered after `--`;
#   zsh:  the completion function parses (zsh -n), where zsh is installed.
# Usage: scripts/check_completion.sh BUILD_BIN_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: check_completion.sh BUILD_BIN_DIR}
PATH="$bin:$PATH"
# shellcheck source=../contrib/completion/dcukit.bash
source contrib/completion/dcukit.bash
failures=0
expect() {  # WANT WORD...: the completion of WORD... holds WANT (or is empty for "")
  local want=$1
  shift
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _dcukit
  local got=" ${COMPREPLY[*]} "
  if [ -z "$want" ]; then
    [ "${#COMPREPLY[@]}" -eq 0 ] && return
  elif [[ $got == *" $want "* ]]; then
    return
  fi
  echo "check_completion: [$*] gave [${COMPREPLY[*]}], expected ${want:-nothing}" >&2
  failures=$((failures + 1))
}
expect bench dcukit ""
expect exporter dcukit ex
expect translate dcukit port ""
expect --names dcukit exporter --na
expect --json dcukit port audit --j
expect --limit dcukit patrol --li
expect "" dcukit guard -- vl
[ "$failures" -eq 0 ] || exit 1
echo "check_completion: bash completes commands, subcommands and options"
if command -v zsh >/dev/null; then
  zsh -n contrib/completion/_dcukit
  echo "check_completion: the zsh function parses"
else
  echo "check_completion: zsh not installed; its function was not checked"
fi
