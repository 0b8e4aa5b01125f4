package main

import (
	"fmt"
	"io"
	"strings"
)

// importFrom are the names "host mcp import --from" takes besides a file.
var importFrom = []string{"claude-code", "claude-desktop", "codex", "cursor", "gemini", "vscode"}

var completionShells = []string{"bash", "zsh", "fish", "powershell"}

// runCompletion prints the completion script for one shell: commands,
// "mcp" subcommands, the shells, and import's --from names.
func runCompletion(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(stdout, "Usage: host completion bash|zsh|fish|powershell\n\nPrints a completion script for the shell. Examples:\n  source <(host completion bash)\n  host completion zsh > \"${fpath[1]}/_host\"\n  host completion fish > ~/.config/fish/completions/host.fish\n  host completion powershell | Out-String | Invoke-Expression")
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

const bashCompletion = `# bash completion for host (mcp-host): source <(host completion bash)
_host() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words
  if [ "$prev" = "--from" ]; then words="%[4]s"
  elif [ "$COMP_CWORD" -eq 1 ]; then words="%[1]s"
  elif [ "$COMP_CWORD" -eq 2 ] && [ "${COMP_WORDS[1]}" = mcp ]; then words="%[2]s"
  elif [ "$COMP_CWORD" -eq 2 ] && [ "${COMP_WORDS[1]}" = completion ]; then words="%[3]s"
  else COMPREPLY=($(compgen -f -- "$cur")); return; fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _host host
`

const zshCompletion = `#compdef host
# zsh completion for host (mcp-host): host completion zsh > "${fpath[1]}/_host"
_host() {
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
compdef _host host
`

const fishCompletion = `# fish completion for host (mcp-host): host completion fish > ~/.config/fish/completions/host.fish
complete -c host -f -n __fish_use_subcommand -a '%[1]s'
complete -c host -f -n '__fish_seen_subcommand_from mcp; and not __fish_seen_subcommand_from %[2]s' -a '%[2]s'
complete -c host -f -n '__fish_seen_subcommand_from completion' -a '%[3]s'
complete -c host -n '__fish_seen_subcommand_from import' -l from -x -a '%[4]s'
`

const powershellCompletion = `# PowerShell completion for host (mcp-host): host completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName host -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $words = @($commandAst.CommandElements | ForEach-Object { $_.ToString() })
  $n = $words.Count
  if ($wordToComplete -eq '') { $n++ }
  $prev = if ($wordToComplete -eq '') { $words[-1] } else { $words[-2] }
  $list = @()
  if ($prev -eq '--from') { $list = @(%[4]s) }
  elseif ($n -eq 2) { $list = @(%[1]s) }
  elseif ($n -eq 3 -and $words[1] -eq 'mcp') { $list = @(%[2]s) }
  elseif ($n -eq 3 -and $words[1] -eq 'completion') { $list = @(%[3]s) }
  $list | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
    [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
  }
}
`
