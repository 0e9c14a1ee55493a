package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// dropCaches empties the page cache before a read, so the read comes
// from the disk: sync, then 3 into /proc/sys/vm/drop_caches. The first
// call finds out whether that works; when it does not, the owner is told
// whether the numbers can still be trusted (a file larger than RAM cannot
// stay in the cache).
func (lr *localRun) dropCaches(ctx context.Context) {
	if lr.cacheMsg && !lr.cacheOK {
		return
	}
	err := lr.drop(ctx)
	if lr.cacheMsg {
		return
	}
	lr.cacheMsg = true
	lr.cacheOK = err == nil
	if lr.cacheOK {
		lr.say("page cache: dropped before every read (/proc/sys/vm/drop_caches)")
		return
	}
	mem := memTotal(lr)
	if mem > 0 && lr.Size > mem {
		lr.say("page cache: cannot drop it (%v), but the test file (%d MiB) is larger than RAM (%d MiB): reads come from the disk", err, lr.Size/MiB, mem/MiB)
		return
	}
	ram := "RAM size unknown"
	if mem > 0 {
		ram = fmt.Sprintf("RAM is %d MiB", mem/MiB)
	}
	lr.warn("reads may come from the page cache, not the disk: /proc/sys/vm/drop_caches cannot be written (%v) and the test file (%d MiB) may fit in RAM (%s); run as root, or use a --size larger than RAM", err, lr.Size/MiB, ram)
}

func (lr *localRun) drop(ctx context.Context) error {
	if ex := lr.run(ctx, []string{"sync"}); !ex.OK() {
		return fmt.Errorf("sync: %s", failure(ex))
	}
	return lr.Sys.WriteInPlace(lr.Sys.Root("/proc/sys/vm/drop_caches"), []byte("3\n"))
}

// memTotal is MemTotal from /proc/meminfo under the root, in bytes; 0
// when unknown.
func memTotal(lr *localRun) int64 {
	data, err := lr.Sys.ReadFile(lr.Sys.Root("/proc/meminfo"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}
