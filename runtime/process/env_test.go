package process

import (
	"reflect"
	"strings"
	"testing"
)

// hostEnv is a host's environment with secrets beside what programs need.
var hostEnv = []string{
	"PATH=/usr/bin:/bin", "HOME=/home/u", "USER=u", "LOGNAME=u", "LANG=C.UTF-8", "LC_ALL=C", "LC_CTYPE=C",
	"TZ=UTC", "TMPDIR=/tmp", "SHELL=/bin/sh", "TERM=xterm",
	"OPENAI_API_KEY=sk-secret", "GITHUB_TOKEN=ghp_secret", "AWS_SECRET_ACCESS_KEY=aws-secret",
	"SSH_AUTH_SOCK=/run/ssh", "LD_PRELOAD=/evil.so", "LC_=odd", "WANTED=yes",
}

func TestEnvironLinuxKeepsBaseAndGrantsOnly(t *testing.T) {
	got := Environ("linux", hostEnv, map[string]string{"MODE": "x", "HOME": "/srv"}, []string{"WANTED", "NOT_SET"})
	want := []string{
		"HOME=/srv", "LANG=C.UTF-8", "LC_ALL=C", "LC_CTYPE=C", "LOGNAME=u", "MODE=x", "PATH=/usr/bin:/bin",
		"SHELL=/bin/sh", "TERM=xterm", "TMPDIR=/tmp", "TZ=UTC", "USER=u", "WANTED=yes",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Environ =\n %q\nwant\n %q", got, want)
	}
}

func TestEnvironLinuxNamesAreCaseSensitive(t *testing.T) {
	got := Environ("linux", []string{"Path=/x", "path=/y", "home=/h", "Github_Token=s"}, nil, []string{"github_token"})
	if len(got) != 0 {
		t.Errorf("Environ = %q, want nothing: on Linux Path, path and home are not PATH and HOME", got)
	}
}

func TestEnvironWindowsBaseIgnoresCase(t *testing.T) {
	host := []string{
		`=C:=C:\work`, `Path=C:\Windows;C:\node`, `SystemRoot=C:\Windows`, `SYSTEMDRIVE=C:`, `ComSpec=C:\Windows\system32\cmd.exe`,
		`PATHEXT=.COM;.EXE;.BAT;.CMD`, `APPDATA=C:\Users\u\AppData\Roaming`, `LocalAppData=C:\Users\u\AppData\Local`,
		`USERPROFILE=C:\Users\u`, `ProgramFiles(x86)=C:\Program Files (x86)`, `windir=C:\Windows`, `TEMP=C:\t`,
		`NUMBER_OF_PROCESSORS=8`, `OPENAI_API_KEY=sk-secret`, `GITHUB_TOKEN=ghp_secret`, `Wanted=yes`,
	}
	got := Environ("windows", host, map[string]string{"PATH": `C:\only`}, []string{"WANTED"})
	want := []string{
		`APPDATA=C:\Users\u\AppData\Roaming`, `ComSpec=C:\Windows\system32\cmd.exe`, `LocalAppData=C:\Users\u\AppData\Local`,
		`NUMBER_OF_PROCESSORS=8`, `PATH=C:\only`, `PATHEXT=.COM;.EXE;.BAT;.CMD`, `ProgramFiles(x86)=C:\Program Files (x86)`,
		`SYSTEMDRIVE=C:`, `SystemRoot=C:\Windows`, `TEMP=C:\t`, `USERPROFILE=C:\Users\u`, `Wanted=yes`, `windir=C:\Windows`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Environ =\n %q\nwant\n %q", got, want)
	}
	// The Windows names mean nothing elsewhere.
	if IsBase("linux", "SystemRoot") || IsBase("darwin", "ComSpec") {
		t.Error("a Windows variable is in the base set of a unix system")
	}
}

func TestNamesForListsNamesNeverValues(t *testing.T) {
	n := NamesFor("linux", hostEnv, map[string]string{"API_KEY": "configured-secret", "HOME": "/srv"}, []string{"WANTED", "NOT_SET", "HOME"})
	want := Names{
		Base:    []string{"LANG", "LC_ALL", "LC_CTYPE", "LOGNAME", "PATH", "SHELL", "TERM", "TMPDIR", "TZ", "USER"},
		Env:     []string{"API_KEY", "HOME"},
		EnvVars: []string{"WANTED"},
		Unset:   []string{"NOT_SET"},
	}
	if !reflect.DeepEqual(n, want) {
		t.Errorf("NamesFor =\n %+v\nwant\n %+v", n, want)
	}
	hint := n.Hint()
	for _, s := range []string{"PATH", "API_KEY", "WANTED", "NOT_SET", `"env_vars"`} {
		if !strings.Contains(hint, s) {
			t.Errorf("hint lacks %q: %s", s, hint)
		}
	}
	for _, secret := range []string{"configured-secret", "sk-secret", "/usr/bin", "OPENAI_API_KEY"} {
		if strings.Contains(hint, secret) {
			t.Errorf("hint holds %q: %s", secret, hint)
		}
	}
}
