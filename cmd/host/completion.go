package main

import (
	"fmt"
	"io"
	"strings"
)

// importFrom are the names "host mcp import --from" takes besides a file.
var importFrom = []string{"claude-code", "claude-desktop", "codex", "cursor", "gemini", "vscode"}

var completionShells = []string{"bash", "zsh", "fish", "powershell"}

// runCompletion prints the completion script for one shell. The scripts
// ask host __complete for the candidates (see runComplete); the commands,
// "mcp" subcommands, the shells and import's --from names are in them too,
// for a "host" that cannot answer.
func runCompletion(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(stdout, "Usage: host completion bash|zsh|fish|powershell\n\nPrints a completion script for the shell. It completes commands, flags and\ntheir fixed values, the ids of the servers of your config, and the tools of\n\"host mcp call <id>\" that host serve last listed for the server (none\nwhen it has not): no server is started and nothing goes to the network.\nExamples:\n  source <(host completion bash)\n  host completion zsh > \"${fpath[1]}/_host\"\n  host completion fish > ~/.config/fish/completions/host.fish\n  host completion powershell | Out-String | Invoke-Expression")
		return exitOK
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: host completion bash|zsh|fish|powershell")
		return exitUsage
	}
	mcpCommands := keys((&cli{}).commands())
	top, mcp, from := strings.Join(topCommands, " "), strings.Join(mcpCommands, " "), strings.Join(importFrom, " ")
	shells := strings.Join(completionShells, " ")
	switch args[0] {
	case "bash":
		fmt.Fprintf(stdout, bashCompletion, top, mcp, shells, from)
	case "zsh":
		fmt.Fprintf(stdout, zshCompletion, top, mcp, shells, from)
	case "fish":
		fmt.Fprintf(stdout, fishCompletion, top, mcp, shells, from)
	case "powershell":
		fmt.Fprintf(stdout, powershellCompletion, quoteEach(topCommands), quoteEach(mcpCommands), quoteEach(completionShells), quoteEach(importFrom))
	default:
		return unknownCommand(stderr, "host completion", args[0], completionShells)
	}
	return exitOK
}

func quoteEach(list []string) string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = "'" + s + "'"
	}
	return strings.Join(out, ",")
}

// The scripts ask "host __complete" (runComplete) for the candidates: the
// commands, each command's flags and their fixed values, the servers of
// the user's config and the tools host serve kept for them; nothing starts
// a server. A "host" that does not answer it (another program of that
// name, an older host) gets the static candidates of the _static part:
// the commands, the shells and import's --from names.

const bashCompletion = `# bash completion for host (mcp-host): source <(host completion bash)
# Candidates come from "host __complete": commands, flags and their values,
# the servers of your config, the tools host serve kept for them.
_host_static() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words
  if [ "$prev" = "--from" ]; then words="%[4]s"
  elif [ "$COMP_CWORD" -eq 1 ]; then words="%[1]s"
  elif [ "$COMP_CWORD" -eq 2 ] && [ "${COMP_WORDS[1]}" = mcp ]; then words="%[2]s"
  elif [ "$COMP_CWORD" -eq 2 ] && [ "${COMP_WORDS[1]}" = completion ]; then words="%[3]s"
  else COMPREPLY=($(compgen -f -- "$cur")); return; fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
_host() {
  local out directive line
  local -a args
  args=("${COMP_WORDS[@]:1:COMP_CWORD}")
  if [ "${#args[@]}" -lt "$COMP_CWORD" ]; then args+=(""); fi
  COMPREPLY=()
  out=$("${COMP_WORDS[0]}" __complete --bash -- "${args[@]}" 2>/dev/null)
  directive=${out##*$'\n'}
  case $directive in
    :[0-9]*) ;;
    *) _host_static; return 0 ;;
  esac
  if [ "$out" = "$directive" ]; then out=; else out=${out%%$'\n'*}; fi
  while IFS= read -r line; do
    if [ -n "$line" ]; then COMPREPLY+=("$line"); fi
  done <<<"$out"
  if [ "${#COMPREPLY[@]}" -eq 0 ] && (( ${directive#:} & 4 )); then
    compopt +o default 2>/dev/null
  fi
  return 0
}
complete -o default -F _host host
`

const zshCompletion = `#compdef host
# zsh completion for host (mcp-host): host completion zsh > "${fpath[1]}/_host"
# (or: source <(host completion zsh)). Candidates come from "host __complete":
# commands, flags and their values, the servers of your config, the tools
# host serve kept for them.
_host_static() {
  if [[ ${words[CURRENT-1]} == --from ]]; then compadd -- %[4]s; return; fi
  case $CURRENT in
    2) compadd -- %[1]s ;;
    3) case ${words[2]} in
         mcp) compadd -- %[2]s ;;
         completion) compadd -- %[3]s ;;
         *) _files ;;
       esac ;;
    *) _files ;;
  esac
}
_host() {
  local out directive
  local -a lines
  out=$("${(Q)words[1]}" __complete -- "${(@Q)words[2,CURRENT]}" 2>/dev/null)
  lines=("${(@f)out}")
  directive=${lines[-1]}
  if [[ $directive != :<-> ]]; then _host_static; return; fi
  lines=("${(@)lines[1,-2]}")
  if (( ${#lines} )); then
    compadd -- "${(@)lines}"
  elif (( ! (${directive#:} & 4) )); then
    _files
  fi
}
if [[ ${funcstack[1]} == _host ]]; then
  _host "$@"
else
  compdef _host host
fi
`

const fishCompletion = `# fish completion for host (mcp-host): host completion fish > ~/.config/fish/completions/host.fish
# Candidates come from "host __complete": commands, flags and their values,
# the servers of your config, the tools host serve kept for them.
function __host_static
    set -l words (commandline -opc)
    if test "$words[-1]" = --from
        printf '%%s\n' %[4]s
    else if test (count $words) -eq 1
        printf '%%s\n' %[1]s
    else if test (count $words) -eq 2; and test "$words[2]" = mcp
        printf '%%s\n' %[2]s
    else if test (count $words) -eq 2; and test "$words[2]" = completion
        printf '%%s\n' %[3]s
    else
        __fish_complete_path (commandline -ct)
    end
end
function __host_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l out
    if command -q -- $words[1]
        set out ($words[1] __complete -- $words[2..-1] "$cur" 2>/dev/null)
    end
    if not string match -qr '^:[0-9]+$' -- "$out[-1]"
        __host_static
        return
    end
    set -l directive $out[-1]
    set -e out[-1]
    if set -q out[1]
        printf '%%s\n' $out
    else if test "$directive" = :0
        __fish_complete_path "$cur"
    end
end
complete -c host -f -a '(__host_complete)'
`

const powershellCompletion = `# PowerShell completion for host (mcp-host): host completion powershell | Out-String | Invoke-Expression
# Candidates come from "host __complete": commands, flags and their values,
# the servers of your config, the tools host serve kept for them.
Register-ArgumentCompleter -Native -CommandName host -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $words = @($commandAst.CommandElements | Where-Object { $_.Extent.StartOffset -lt $cursorPosition } | ForEach-Object {
    if ($_ -is [System.Management.Automation.Language.StringConstantExpressionAst]) { $_.Value } else { $_.Extent.Text }
  })
  $opts = if ($wordToComplete -eq '') { @('--new', '--') } else { @('--') }
  $rest = @($words | Select-Object -Skip 1)
  $out = @()
  try { $out = @(& $words[0] __complete @opts @rest 2>$null) } catch { $out = @() }
  if ($out.Count -gt 0 -and $out[-1] -match '^:\d+$') {
    $list = @($out | Select-Object -SkipLast 1)
  } else {
    $n = $words.Count
    if ($wordToComplete -eq '') { $n++ }
    $prev = if ($wordToComplete -eq '') { $words[-1] } else { $words[-2] }
    $list = @()
    if ($prev -eq '--from') { $list = @(%[4]s) }
    elseif ($n -eq 2) { $list = @(%[1]s) }
    elseif ($n -eq 3 -and $words[1] -eq 'mcp') { $list = @(%[2]s) }
    elseif ($n -eq 3 -and $words[1] -eq 'completion') { $list = @(%[3]s) }
    $list = @($list | Where-Object { $_ -like "$wordToComplete*" })
  }
  $list | ForEach-Object {
    [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
  }
}
`
