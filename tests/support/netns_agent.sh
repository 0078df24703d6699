#!/bin/sh
# mpirun's remote-shell agent for the MPI network test (plm_rsh_agent), used in place of ssh:
# called as `netns_agent.sh HOST COMMAND...`, it starts COMMAND (Open MPI's orted) in the
# network namespace $NEARDUP_TEST_REMOTE_NETNS with its own host name
# $NEARDUP_TEST_REMOTE_HOSTNAME, so the ranks there look and talk like another node's.
# Like ssh, it hands the command to a shell as one string (Open MPI may put variable
# assignments and several commands in it, so it is not exec'ed directly).
set -eu
shift  # the host: there is one remote "node", named by the environment
exec ip netns exec "$NEARDUP_TEST_REMOTE_NETNS" unshare --uts /bin/sh -c \
    "hostname '$NEARDUP_TEST_REMOTE_HOSTNAME' && $*"
