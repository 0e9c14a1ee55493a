#!/bin/sh
# Samba, as a firmware rc.d script starts it: smbd puts itself in the
# background (-D), its output not redirected.
CONF=/system/hddapp/etc/samba/smb.conf
PID=/run/samba/smbd.pid
# stop waits up to 20 s for smbd to end; one that died on its own (a
# config it cannot serve with) may have left its pid file behind.
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
start)
	mkdir -p /run/samba /var/lib/samba/private /var/cache/samba /var/log/samba
	/usr/sbin/smbd -D -s $CONF
	;;
stop) stop ;;
restart)
	stop
	mkdir -p /run/samba /var/lib/samba/private /var/cache/samba /var/log/samba
	/usr/sbin/smbd -D -s $CONF
	;;
esac
