package image

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestPackageNamesAreChecked(t *testing.T) {
	for _, bad := range []string{
		"-o=APT::Get::AllowUnauthenticated=true", "--allow-unauthenticated", "../evil.deb", "/tmp/x.deb",
		"Python3-Foo", "a", "pkg name", "pkg,other", "?or(~nfoo)", "foo=1.0", "foo/sid", "fo\x00o", "föö",
	} {
		if _, err := packageList([]string{bad}); err == nil || !strings.Contains(err.Error(), "not a Debian package name") {
			t.Errorf("%q: %v, want it refused", bad, err)
		}
	}
	got, err := packageList([]string{" python3-networkx ", "python3-numpy", "", "g++", "libc6.1-dev"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "g++ libc6.1-dev python3 python3-matplotlib python3-networkx python3-numpy python3-pandas python3-pil python3-scipy python3-sklearn python3-sympy"; strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

func TestRecipeHash(t *testing.T) {
	a, err := newRootfsRecipe(Options{})
	if err != nil {
		t.Fatal(err)
	}
	same, _ := newRootfsRecipe(Options{AddDebian: []string{"python3-numpy"}}) // already there
	more, _ := newRootfsRecipe(Options{AddDebian: []string{"python3-networkx"}})
	mirror, _ := newRootfsRecipe(Options{Sources: []string{"deb http://mirror.example/debian bookworm main"}})
	labelled, _ := newRootfsRecipe(Options{Labels: map[string]string{"a": "b"}})
	if a.hash != same.hash {
		t.Error("the same packages gave another recipe")
	}
	for name, r := range map[string]*rootfsRecipe{"more packages": more, "another mirror": mirror, "a label": labelled} {
		if r.hash == a.hash {
			t.Errorf("%s: same recipe hash", name)
		}
	}
	if _, err := newRootfsRecipe(Options{Sources: []string{"--setup-hook=touch /x"}}); err == nil {
		t.Error("a source that is an option was accepted")
	}
}

func TestLabelsAreChecked(t *testing.T) {
	for _, bad := range []map[string]string{{"": "x"}, {"a b": "c"}, {"a": "b c"}, {"a": "b\nRUN x"}, {"a=b": "c"}, {"a": `"b"`}} {
		if err := checkLabels(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if err := checkLabels(map[string]string{"io.star-agent.test": "x-1_2:3/4"}); err != nil {
		t.Error(err)
	}
	if got := labelChange("image", "abc", map[string]string{"z": "1", LabelRole: "test-image"}); got != "LABEL io.star-agent.managed=true io.star-agent.recipe=abc io.star-agent.role=test-image z=1" {
		t.Errorf("got %q", got)
	}
}

func TestPackagesDirectory(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pkg", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "pkg", "__init__.py"), []byte("X = 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "pkg", "sub", "m.py"), []byte("Y = 2\n"), 0o644)
	pd, err := scanPackages(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pd.files, " "); got != "pkg/ pkg/__init__.py pkg/sub/ pkg/sub/m.py" {
		t.Errorf("files %s", got)
	}
	os.WriteFile(filepath.Join(dir, "pkg", "sub", "m.py"), []byte("Y = 3\n"), 0o644)
	if pd2, _ := scanPackages(dir); pd2.sum == pd.sum {
		t.Error("a changed file kept the hash")
	}

	// A symbolic link could carry any host file into the image.
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "pkg", "passwd.py")); err != nil {
		t.Fatal(err)
	}
	if _, err := scanPackages(dir); err == nil || !strings.Contains(err.Error(), "passwd.py is a symbolic link") {
		t.Errorf("symlink: %v", err)
	}
	os.Remove(filepath.Join(dir, "pkg", "passwd.py"))
	os.Symlink("/etc", filepath.Join(dir, "etc"))
	if _, err := scanPackages(dir); err == nil {
		t.Error("a symlinked directory was accepted")
	}
	if _, err := scanPackages(t.TempDir()); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty: %v", err)
	}
	if _, err := scanPackages(filepath.Join(dir, "pkg", "__init__.py")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file: %v", err)
	}
	if _, err := scanPackages(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing directory was accepted")
	}
}

func TestAgentBinaryIsChecked(t *testing.T) {
	var l layerRecipe
	script := filepath.Join(t.TempDir(), "star-agent")
	os.WriteFile(script, []byte("#!/bin/sh\necho hi\n"), 0o755)
	if err := l.checkAgent(script); err == nil || !strings.Contains(err.Error(), "is not an ELF executable") {
		t.Errorf("a shell script: %v", err)
	}
	if runtime.GOOS != "linux" {
		t.Skip("ELF checks need Linux binaries")
	}
	sh, _ := exec.LookPath("sh")
	if sh == "" {
		t.Skip("no sh")
	}
	sh, _ = filepath.EvalSymlinks(sh)
	if err := l.checkAgent(sh); err != nil {
		t.Fatal(err)
	}
	if l.static || !strings.Contains(l.interp, "ld-linux") {
		t.Errorf("%s: static %v, interpreter %q: want dynamic with ld-linux", sh, l.static, l.interp)
	}
}

// TestStubDeb checks the Pythran stand-in with dpkg-deb, which reads it
// as apt will.
func TestStubDeb(t *testing.T) {
	dpkg, err := exec.LookPath("dpkg-deb")
	if err != nil {
		t.Skip("no dpkg-deb")
	}
	path := filepath.Join(t.TempDir(), "stub.deb")
	if err := writeDeb(path, pythranStub); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(dpkg, "--field", path, "Package", "Version", "Architecture").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if want := "Package: python3-pythran\nVersion: 0.0~star-agent1\nArchitecture: all\n"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if out, err := exec.Command(dpkg, "--contents", path).CombinedOutput(); err != nil || strings.Count(string(out), "\n") != 1 {
		t.Errorf("contents %q, %v: want the root directory only", out, err)
	}
}
