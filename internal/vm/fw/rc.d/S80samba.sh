#!/bin/sh
# Samba, as a firmware rc.d script starts it: smbd puts itself in the
# background (-D), its output not redirected.
CONF=/system/hddapp/etc/samba/smb.conf
PID=/run/samba/smbd.pid
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
