#!/bin/sh
# ProFTPD, standalone: it puts itself in the background.
CONF=/system/hddapp/etc/proftpd.conf
PID=/run/proftpd.pid
# stop waits up to 20 s for proftpd to end; one that died on its own may
# have left its pid file behind.
stop() {
	[ -f $PID ] || return 0
	pid=$(cat $PID)
	kill "$pid" 2>/dev/null
	n=0
	while [ -n "$pid" ] && [ -d "/proc/$pid" ] && [ $n -lt 20 ]; do
		sleep 1
		n=$((n + 1))
	done
	rm -f $PID
}
case "$1" in
start) /usr/sbin/proftpd -c $CONF ;;
stop) stop ;;
restart)
	stop
	/usr/sbin/proftpd -c $CONF
	;;
esac
