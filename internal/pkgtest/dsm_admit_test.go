package pkgtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDSMRefusesWrongPackage proves each package installs only on the DSM
// it is for: DSM refuses it by INFO (firmware, os_min_ver, os_max_ver,
// arch, as Package Center reads them) where it can, and preinst refuses
// it with a message naming the right package where DSM would let it in
// (DSM 6.0 reads no os_max_ver). Nothing is left behind by a refusal.
func TestDSMRefusesWrongPackage(t *testing.T) {
	tests := []struct {
		target, dsm string
		want        string // in the refusal
	}{
		{"dsm5", "6.2-25556", "only up to DSM 5.2-99999"},
		{"dsm5", "7.2-64570", "DSM 7 installs only packages made for it"},
		{"dsm5", "6.0-7321", "install userscript-VERSION-dsm6.spk"}, // preinst
		{"dsm6", "5.2-5967", "needs DSM 6.0-7321 or later"},
		{"dsm6", "7.2-64570", "DSM 7 installs only packages made for it"},
		{"dsm7", "6.2-25556", "needs DSM 7.0-40000 or later"},
		{"dsm7", "5.2-5967", "install userscript-VERSION-dsm5.spk"}, // preinst: DSM 5 reads no os_min_ver
	}
	for _, tt := range tests {
		t.Run(tt.target+"@"+tt.dsm, func(t *testing.T) {
			t.Parallel()
			spk := dist(t, tt.target)
			d := newDSM(t, tt.dsm)
			err := d.Install(spk)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("install %s on DSM %s: %v; want a refusal saying %q", tt.target, tt.dsm, err, tt.want)
			}
			if _, ok := d.Installed("userscript"); ok {
				t.Error("the package counts as installed after the refusal")
			}
			for _, p := range []string{"volume1/userscript", "var/packages/userscript", "volume1/@appstore/userscript"} {
				if _, err := os.Lstat(filepath.Join(d.Root, p)); err == nil {
					t.Errorf("the refusal left %s", p)
				}
			}
		})
	}
}
