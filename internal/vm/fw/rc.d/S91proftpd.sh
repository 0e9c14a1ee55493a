#!/bin/sh
# ProFTPD, standalone: it puts itself in the background.
CONF=/system/hddapp/etc/proftpd.conf
PID=/run/proftpd.pid
stop() {
	[ -f $PID ] || return 0
	kill "$(cat $PID)" 2>/dev/null
	n=0
	while [ -f $PID ] && [ $n -lt 20 ]; do
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
