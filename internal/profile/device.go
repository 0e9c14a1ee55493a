package profile

// A DeviceProbe reads what a device says about itself (its firmware or
// DSM version, say) through read, which reads a device path; "" when it
// finds nothing. `userscript doctor` shows it.
type DeviceProbe func(read func(devicePath string) ([]byte, error)) string

// deviceProbes holds a probe per profile name. None is known yet: the
// IB-NAS4220-B's firmware keeps its version nowhere public. A profile
// that knows where its device keeps its version (DSM's
// /etc.defaults/VERSION, say) adds its probe here, in its own file:
//
//	func init() { deviceProbes["dsm"] = dsmVersion }
var deviceProbes = map[string]DeviceProbe{}

// Device is what the device of profile name says about itself, or "".
func Device(name string, read func(devicePath string) ([]byte, error)) string {
	if probe := deviceProbes[name]; probe != nil {
		return probe(read)
	}
	return ""
}
