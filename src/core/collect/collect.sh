# dataplane collect: prints a node's Service dataplane dumps as one stream on standard output.
# POSIX sh; run as root on the node (directly, through `ssh HOST sh -s`, or `chroot /host sh -c`).
# The caller sets DPX_B (the record marker, random per run) and DPX_CONNTRACK=1 to include conntrack -L.
# Each record: "$DPX_B BEGIN name", the command's standard output, then "\n$DPX_B END name rc" (the newline
# before END is the script's, not the command's). "$DPX_B MISSING tool" says a tool is not installed.
# A missing tool is never fatal; nothing here changes the node.
PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
export PATH LC_ALL=C
B="${DPX_B:-@@dataplane-collect@@}"
# Where standard output and error are one stream (kubectl logs), tools' complaints would split records.
if [ "${DPX_QUIET:-0}" = 1 ]; then exec 2>/dev/null; fi

have() { command -v "$1" >/dev/null 2>&1; }

# rec NAME CMD ARGS…: one record with CMD's standard output and exit status; standard error passes through.
rec() {
  name=$1
  shift
  printf '%s BEGIN %s\n' "$B" "$name"
  "$@" </dev/null
  rc=$?
  printf '\n%s END %s %s\n' "$B" "$name" "$rc"
}

# tool NAME CMD ARGS…: rec when CMD exists, else a MISSING record.
tool() {
  if have "$2"; then rec "$@"; else printf '%s MISSING %s\n' "$B" "$2"; fi
}

printf '%s START 1\n' "$B"
rec meta/hostname uname -n
rec meta/kernel uname -r
rec meta/time date -u +%Y-%m-%dT%H:%M:%SZ

# iptables: each backend that is installed (the CLI keeps those that print rules).
found=
for backend in nft legacy; do
  for fam in iptables ip6tables; do
    if have "$fam-$backend-save"; then
      found=1
      rec "iptables/$fam-$backend" "$fam-$backend-save" -c
      rec "version/$fam-$backend" "$fam-$backend-save" --version
    else
      printf '%s MISSING %s\n' "$B" "$fam-$backend-save"
    fi
  done
done
if [ -z "$found" ]; then
  tool iptables/iptables iptables-save -c
  tool iptables/ip6tables ip6tables-save -c
fi

tool nft/json nft -j list ruleset
tool nft/text nft list ruleset
tool version/nft nft --version
tool ipvs/save ipvsadm -Sn
tool ipvs/stats ipvsadm -Ln --stats
tool version/ipvsadm ipvsadm --version
tool ipset/save ipset save
tool version/ipset ipset --version
tool ip/addr ip -j addr
tool ip/route ip -j route show table all
tool ip/rule ip -j rule
tool version/ip ip -V
if [ "${DPX_CONNTRACK:-0}" = 1 ]; then
  tool conntrack/list conntrack -L
  tool version/conntrack conntrack --version
fi

# The sysctls that decide how Service traffic flows (absent keys are skipped: no module, no file).
sysctls() {
  for key in net.ipv4.ip_forward net.ipv6.conf.all.forwarding net.ipv4.conf.all.route_localnet \
    net.ipv4.conf.all.rp_filter net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables \
    net.netfilter.nf_conntrack_max net.netfilter.nf_conntrack_count net.nf_conntrack_max \
    net.netfilter.nf_conntrack_tcp_be_liberal net.netfilter.nf_conntrack_udp_timeout \
    net.netfilter.nf_conntrack_udp_timeout_stream; do
    file="/proc/sys/$(printf '%s' "$key" | tr . /)"
    if [ -r "$file" ]; then printf '%s = %s\n' "$key" "$(cat "$file")"; fi
  done
  for file in /proc/sys/net/ipv4/vs/*; do
    if [ -r "$file" ] && [ -f "$file" ]; then printf 'net.ipv4.vs.%s = %s\n' "${file##*/}" "$(cat "$file" 2>/dev/null)"; fi
  done
  return 0
}
rec sysctl/all sysctls

# kube-proxy's metrics port answers its mode (iptables, ipvs, nftables) on the node's loopback.
if have curl; then
  rec kube-proxy/mode curl -s -m 3 http://localhost:10249/proxyMode
elif have wget; then
  rec kube-proxy/mode wget -q -T 3 -O - http://localhost:10249/proxyMode
else
  printf '%s MISSING curl\n' "$B"
fi
printf '%s DONE\n' "$B"
