package image

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"
)

// removeTree removes dir, a build's temporary directory, after unmounting
// whatever a killed mmdebstrap left mounted in its chroot under it (in
// root mode it mounts /dev, /proc, /sys and the stub package there). It
// removes nothing while a mount remains: the removal would go on into the
// host's /dev or /proc.
func removeTree(dir string) error {
	under := func() []string {
		data, _ := os.ReadFile("/proc/self/mountinfo")
		var out []string
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) > 4 && strings.HasPrefix(f[4], dir+"/") {
				out = append(out, f[4])
			}
		}
		sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
		return out
	}
	for _, mp := range under() {
		syscall.Unmount(mp, syscall.MNT_DETACH)
	}
	if left := under(); len(left) > 0 {
		return fmt.Errorf("image: %s still has %d mounts (%s): unmount them (umount -R) and remove it", dir, len(left), left[0])
	}
	return os.RemoveAll(dir)
}
