#!/bin/sh
# Two "nodes" on this machine for the MPI network test: two network namespaces joined by a veth
# pair, so that ranks in them can only reach each other over TCP through a real network stack,
# as ranks on separate hosts do. Needs root (CAP_NET_ADMIN) and iproute2.
#   netns_nodes.sh up NAME SUBNET    creates NAME-a (SUBNET.1) and NAME-b (SUBNET.2), /24
#   netns_nodes.sh down NAME         removes both (and the veth pair with them)
# SUBNET is three octets, e.g. 10.201.7. NAME stays short: interface names are at most 15 bytes.
set -eu
cmd=$1
name=$2
case "$cmd" in
up)
    subnet=$3
    "$0" down "$name" 2>/dev/null || true  # a run killed before its cleanup left them
    ip netns add "$name-a"
    ip netns add "$name-b"
    ip link add "$name-va" type veth peer name "$name-vb"
    ip link set "$name-va" netns "$name-a"
    ip link set "$name-vb" netns "$name-b"
    ip -n "$name-a" addr add "${subnet}1/24" dev "$name-va"
    ip -n "$name-b" addr add "${subnet}2/24" dev "$name-vb"
    for side in a b; do
        ip -n "$name-$side" link set lo up
        ip -n "$name-$side" link set "$name-v$side" up
    done
    ;;
down)
    # Deleting a namespace deletes the veth end in it, and with it its peer.
    status=0
    ip netns del "$name-a" || status=1
    ip netns del "$name-b" || status=1
    exit "$status"
    ;;
*)
    echo "usage: $0 up NAME SUBNET | down NAME" >&2
    exit 2
    ;;
esac
