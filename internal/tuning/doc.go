// Package tuning applies the kernel settings NAS owners tune and the
// firmware forgets at every reboot: conf.d/sysctl.conf (written under
// /proc/sys) and conf.d/tuning.conf, a small line format both engines
// parse:
//
//	sysfs block/sd*/queue/scheduler = deadline   # a path under /sys; globs allowed
//	txqueuelen eth0 = 10000                      # /sys/class/net/eth0/tx_queue_len
//	irq eth0 = 2                                 # every IRQ /proc/interrupts names eth0
//	cpufreq governor = ondemand                  # every CPU's scaling_governor
//	cpufreq max_freq = 960000                    # scaling_max_freq (also min_freq)
//	cpufreq ondemand/io_is_busy = 1              # a governor's own tunable
//
// Each setting is written, read back and reported: applied, already set,
// unsupported (the path is missing on this kernel) or failed with the
// kernel's error. One bad line never stops the others. The value found
// before the first change is kept in state/tuning.json (shared with the
// sh engine, docs/FORMATS.md) so it can be put back: `tune --revert`, or
// removing the line from conf.d.
package tuning
