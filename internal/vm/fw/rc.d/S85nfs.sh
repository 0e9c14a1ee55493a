#!/bin/sh
# NFS: rpcbind, the kernel server and mountd; a restart re-reads
# /etc/exports (exportfs -ra).
case "$1" in
start)
	mkdir -p /run/rpcbind /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery
	[ -f /var/lib/nfs/etab ] || : >/var/lib/nfs/etab
	[ -f /var/lib/nfs/rmtab ] || : >/var/lib/nfs/rmtab
	/usr/sbin/rpcbind -w
	/usr/sbin/exportfs -ra
	/usr/sbin/rpc.nfsd 4
	/usr/sbin/rpc.mountd
	;;
stop)
	/usr/sbin/exportfs -ua
	/usr/sbin/rpc.nfsd 0
	;;
restart) /usr/sbin/exportfs -ra ;;
esac
