// Package ansibletest runs the Ansible role in contrib/ansible with
// Debian's ansible-playbook against two simulated IB-NAS4220-B boxes
// (internal/firmsim) through a local connection: one gets the amd64
// package, whose Go engine runs here, the other the armv4 package, the sh
// engine under BusyBox's ash with only the applets an old firmware has.
// The role installs the packages `make dist` writes, pushes conf.d,
// applies it and reports each box's statuses; the tests read
// ansible-playbook's results (testdata/callback, a JSON stdout callback:
// Debian's ansible-core has none) and the boxes' files. As root,
// ansible-playbook runs in a network namespace of its own, so a role
// that reached for the network would fail.
package ansibletest
