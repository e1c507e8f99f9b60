# bash completion for dcukit. Commands and options come from `dcukit ... --help`, so they
# always match the binary installed: nothing here lists them by hand.
# Installed as /usr/share/bash-completion/completions/dcukit.

# _dcukit_help PROGRAM WORD...: the help of the longest chain of WORDs that are subcommands.
_dcukit_help() {
  local prog=$1 help next w
  shift
  help=$(timeout 5 "$prog" --help 2>/dev/null) || return 1
  _dcukit_chain=()
  for w in "$@"; do
    [[ $w == -* ]] && break
    _dcukit_subcommands "$help" | grep -qxF -- "$w" || break
    next=$(timeout 5 "$prog" "${_dcukit_chain[@]}" "$w" --help 2>/dev/null) || break
    _dcukit_chain+=("$w")
    help=$next
  done
  printf '%s\n' "$help"
}

# The first word of each line of the help's "Subcommands:" section.
_dcukit_subcommands() {
  awk '/^Subcommands:/ {on = 1; next} on && /^[^ ]/ {on = 0} on && /^  [a-z]/ {print $1}' <<<"$1"
}

# Every option the help names (--long and -s).
_dcukit_options() {
  grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' <<<"$1" | sed 's/^[ ,]*//' | sort -u
}

_dcukit() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} help
  local -a _dcukit_chain
  local w
  for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    if [[ $w == -- ]]; then COMPREPLY=(); return 0; fi  # after --: guard's service command line
  done
  help=$(_dcukit_help "${COMP_WORDS[0]}" "${COMP_WORDS[@]:1:COMP_CWORD-1}") || return 0
  case $prev in
    --json|--csv|--markdown|--sarif|--from|--from-bundle|--bundle|--config|--log-file|--out-dir|-o|--output|--dataset-path|--check-log|--root|--model|--python)
      mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_dcukit_options "$help")" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -W "$(_dcukit_subcommands "$help")" -- "$cur")
    if [ "${#COMPREPLY[@]}" -eq 0 ]; then mapfile -t COMPREPLY < <(compgen -f -- "$cur"); fi
  fi
}
complete -o filenames -F _dcukit dcukit
