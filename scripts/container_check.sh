#!/usr/bin/env bash
# Checks serve/Dockerfile where no Docker engine runs (this project's
# machines have only the client): builds it as `docker build` would, then
# runs the image as `docker run` would and talks to the server in it.
#
#   scripts/container_check.sh [DOCKERFILE]     # default serve/Dockerfile
#
# Each FROM starts a fresh Debian 12 root (debootstrap's minbase of
# bookworm, brought up to date, without package lists, as the debian:12
# image is; no other base is known here). COPY . copies the build context:
# what a clone has (tracked files and untracked ones git does not ignore)
# less .dockerignore's patterns; COPY --from copies out of an earlier
# stage's root. RUN runs in the stage's root with no input, under SHELL
# (default /bin/sh -c), from WORKDIR, as USER, with PATH, HOME and the ENV
# set so far. The instructions and forms that serve/Dockerfile uses are all
# it knows; any other is an error. Then ENTRYPOINT and CMD run in the last
# stage's root as its USER, with a model repository mounted read-only at
# /mnt/models (models/demo_convnet, and ../shared/models/ppocr_cls_mobile_v2
# when that folder is there), on the ports it EXPOSEs: the first is taken
# as the HTTP port, the second as gRPC's. The check asks for health and
# metadata, runs each model over HTTP (JSON) against its expected outputs,
# calls ServerLive over gRPC, and sends SIGTERM: the server must exit 0
# within 30 s.
#
# Not run in CI, as issue 15 asks of the image: it builds pdlite and the
# server once more (229 s on two cores with an empty ccache; RUN steps use
# this machine's ccache, so a second run takes about 30 s). What differs
# from a Docker engine: no layers or cache of its own; the host's network
# (the ports must be free here) and kernel; no cgroup limits; each root
# reaches the package archives with this machine's apt sources, proxy
# settings and certificate authorities (installed before each RUN as root)
# rather than the image's own, and RUN gets CCACHE_DIR; and the context
# lacks the files git ignores, which Docker would send unless .dockerignore
# excludes them (it does not exclude __pycache__/, say). Needs root
# (debootstrap, chroot, mount); uses curl, python3 and procps.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
dockerfile=${1:-serve/Dockerfile}
shared="$(cd .. && pwd)/shared"

start=$SECONDS
source scripts/lib/debian_root.sh
debian_root_prepare container_check procps
base=$(debian_root_base "")

work="$debian_root_cache/container"
server_job=""
cleanup() {
  local status=$?
  if [ -n "$server_job" ] && kill -0 "$server_job" 2>/dev/null; then
    pkill -KILL -P "$server_job" 2>/dev/null || true
    wait "$server_job" 2>/dev/null || true
  fi
  if [ "$status" -ne 0 ] && [ -s "$work/server.log" ]; then
    echo "== the server's output (last 40 lines):" >&2
    tail -40 "$work/server.log" >&2
  fi
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
rm -rf --one-file-system "$work"
mkdir -p "$work"

fail() { echo "container_check: $dockerfile: $*" >&2; exit 1; }

# The build context, NUL-separated. .dockerignore's patterns are matched
# as Docker does for the forms known here: a name or glob without "/",
# against a path's first component (a folder then goes whole), or a path
# without glob characters, against the path and its parent folders.
ignores=()
if [ -f .dockerignore ]; then
  while IFS= read -r pattern; do
    pattern=$(echo "$pattern" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
    [ -n "$pattern" ] && [ "${pattern:0:1}" != "#" ] || continue
    pattern=${pattern#/}
    pattern=${pattern%/}
    if [[ $pattern == !* || $pattern == *'**'* ||
          ($pattern == */* && $pattern == *[\*\?\[]*) ]]; then
      fail ".dockerignore: '$pattern': not a pattern this check knows"
    fi
    ignores+=("$pattern")
  done <.dockerignore
fi
context_files() {
  debian_root_clone_files |
    while IFS= read -r -d '' file; do
      for pattern in "${ignores[@]}"; do
        if [[ $pattern == */* ]]; then
          [[ $file == "$pattern" || $file == "$pattern"/* ]] && continue 2
        else
          # shellcheck disable=SC2053  # the pattern is a glob
          [[ ${file%%/*} == $pattern ]] && continue 2
        fi
      done
      printf '%s\0' "$file"
    done
}

# A JSON array of strings (an exec form) into the array named $1.
json_words() {
  local words
  words=$(python3 -c 'import json, sys
words = json.loads(sys.argv[1])
assert isinstance(words, list) and words, "not a list of strings"
assert all(isinstance(w, str) and "\n" not in w for w in words), "not a list of strings"
print("\n".join(words))' "$2") || fail "not a JSON array of strings: $2"
  mapfile -t "$1" <<<"$words"
}

# The Dockerfile's instructions, one per record, as Docker reads them:
# comment lines dropped (also inside a continued instruction), blank lines
# dropped, a line ending in "\" joined to the next without the "\".
instructions() {
  awk '
    /^[[:space:]]*#/ { next }
    /^[[:space:]]*$/ { next }
    {
      line = $0
      if (sub(/\\[[:space:]]*$/, "", line)) { buf = buf line; next }
      printf "%s%c", buf line, 0
      buf = ""
    }
    END { if (buf ~ /[^[:space:]]/) printf "%s%c", buf, 0 }' "$dockerfile"
}

# Sets options to debian_root_run's options for the stage's user and
# environment, as Docker sets them: PATH (the default unless ENV sets it), HOME from the user's
# /etc/passwd line ("/" without one), the ENV set so far; nothing else.
default_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
run_options() {
  local uid=0 gid=0 home=/root entry env
  options=()
  if [ -n "$user" ]; then
    uid=${user%%:*}
    entry=$(awk -F: -v u="$uid" '$1 == u || $3 == u { print; exit }' "$root/etc/passwd")
    if [ -n "$entry" ]; then
      IFS=: read -r _ _ uid gid _ home _ <<<"$entry"
    else
      [[ $uid =~ ^[0-9]+$ ]] || fail "USER $user: no such user in the image"
      home=/
    fi
    [[ $user != *:* ]] || gid=${user#*:}
    options+=(--user "$uid:$gid")
  fi
  options+=(--bare-env --env "HOME=$home")
  for env in "${envs[@]}"; do options+=(--env "$env"); done
}
env_value() {  # the value ENV gave NAME, or the default's
  local env value=""
  [ "$1" != PATH ] || value=$default_path
  for env in "${envs[@]}"; do [ "${env%%=*}" != "$1" ] || value=${env#*=}; done
  echo "$value"
}

declare -A stage_roots=()
stage=0 root="" dir=/ user="" shell=(/bin/sh -c) envs=() entrypoint=() cmd=()
ports=()
# The instructions come on descriptor 3, so that no RUN reads them (Docker
# gives RUN no input).
while IFS= read -r -u 3 -d '' instruction; do
  keyword=${instruction%%[[:space:]]*}
  args=${instruction#"$keyword"}
  args=${args#"${args%%[![:space:]]*}"}
  args=${args%"${args##*[![:space:]]}"}
  keyword=${keyword^^}
  [ -n "$root" ] || [ "$keyword" = FROM ] || fail "$keyword before FROM"
  case "$keyword" in
    FROM)
      read -r image as name rest <<<"$args"
      [ "$image" = debian:12 ] || fail "FROM $image: only debian:12 is known"
      [ -z "$as" ] || [[ ${as^^} == AS && -n "$name" && -z "$rest" ]] ||
        fail "FROM $args: only FROM IMAGE [AS NAME] is known"
      stage=$((stage + 1))
      root="$work/stage-$stage"
      echo "== stage $stage ($image${name:+ as $name}): $root"
      debian_root_unpack "$base" "$root"
      # The debian:12 image has no package lists: a RUN must fetch them.
      rm -rf "$root"/var/lib/apt/lists/*
      [ -z "${name:-}" ] || stage_roots[$name]=$root
      stage_roots[$((stage - 1))]=$root
      dir=/ user="" shell=(/bin/sh -c) envs=() entrypoint=() cmd=() ports=()
      ;;
    SHELL) json_words shell "$args" ;;
    WORKDIR)
      [[ $args == /* && $args != *..* ]] ||
        fail "WORKDIR $args: only an absolute path without .. is known"
      dir=$args; mkdir -p "$root$dir"
      ;;
    COPY)
      if [ "$args" = ". ." ]; then
        echo "== COPY the build context into $dir"
        context_files | debian_root_copy_files "$root$dir"
      elif [[ $args =~ ^--from=([^[:space:]]+)[[:space:]]+(/[^[:space:]]*)[[:space:]]+(/[^[:space:]]*)$ &&
              $args != *..* ]]; then
        from=${stage_roots[${BASH_REMATCH[1]}]:-}
        [ -n "$from" ] || fail "COPY $args: no stage ${BASH_REMATCH[1]}"
        [ -d "$from${BASH_REMATCH[2]}" ] || fail "COPY $args: no folder ${BASH_REMATCH[2]} there"
        echo "== COPY ${BASH_REMATCH[2]} from ${BASH_REMATCH[1]} to ${BASH_REMATCH[3]}"
        mkdir -p "$root${BASH_REMATCH[3]}"
        cp -a "$from${BASH_REMATCH[2]}/." "$root${BASH_REMATCH[3]}/"
      else
        fail "COPY $args: only 'COPY . .' and 'COPY --from=STAGE /FOLDER /FOLDER' are known"
      fi
      ;;
    RUN)
      echo "== RUN $args"
      run_start=$SECONDS
      run_options
      status=0
      debian_root_run --bind "$ccache_dir:/var/cache/pdlite-ccache" \
        --env CCACHE_DIR=/var/cache/pdlite-ccache "${options[@]}" \
        "$root" "$dir" "${shell[@]}" "$args" </dev/null || status=$?
      [ "$status" -eq 0 ] || fail "RUN failed (exit $status): $args"
      echo "== RUN took $((SECONDS - run_start)) s"
      ;;
    USER) user=$args ;;
    ENV)
      [[ $args =~ ^([A-Za-z_][A-Za-z0-9_]*)=([^[:space:]\"\'\\]*)$ ]] ||
        fail "ENV $args: only one unquoted NAME=VALUE is known"
      name=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]}
      # $PATH is the only variable substituted: its value so far.
      value=${value//\$PATH/$(env_value PATH)}
      [[ $value != *'$'* ]] || fail "ENV $args: only \$PATH is substituted"
      envs+=("$name=$value")
      ;;
    EXPOSE) read -r -a exposed <<<"$args"; ports+=("${exposed[@]}") ;;
    ENTRYPOINT) json_words entrypoint "$args" ;;
    CMD) json_words cmd "$args" ;;
    *) fail "$keyword: not an instruction this check knows" ;;
  esac
done 3< <(instructions)
[ -n "$root" ] || fail "no FROM"
[ ${#entrypoint[@]} -gt 0 ] || fail "no ENTRYPOINT"
echo "== image built in $((SECONDS - start)) s: $(du -sh --one-file-system "$root" | cut -f1)" \
     "(the build stage: $(du -sh --one-file-system "$work/stage-1" | cut -f1))"

# The model repository.
models="$work/models"
mkdir -p "$models/demo_convnet/1"
cp models/demo_convnet/model.pdmodel models/demo_convnet/model.pdiparams \
   "$models/demo_convnet/1/"
checks=("demo_convnet models/demo_convnet/input_x.npy models/demo_convnet")
real="$shared/models/ppocr_cls_mobile_v2"
if [ -d "$real" ]; then
  mkdir -p "$models/ppocr_cls_mobile_v2/1"
  cp "$real/inference.pdmodel" "$real/inference.pdiparams" \
     "$models/ppocr_cls_mobile_v2/1/"
  checks+=("ppocr_cls_mobile_v2 $real/ref/input_x.npy $real/ref")
fi
chmod -R a+rX "$models"

# As `docker run -p PORT:PORT` for each EXPOSEd port.
http_port="" grpc_port=""
for port in "${ports[@]}"; do
  port=${port%/tcp}
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    fail "port $port is in use on this machine; the image's server needs it"
  fi
  if [ -z "$http_port" ]; then http_port=$port; else grpc_port=$port; fi
done
[ -n "$http_port" ] || fail "no EXPOSEd port"
echo "== run: ${entrypoint[*]} ${cmd[*]} (user ${user:-root}, /mnt/models read-only)"
run_options
debian_root_run --bind "$models:/mnt/models:ro" "${options[@]}" \
  "$root" "$dir" "${entrypoint[@]}" "${cmd[@]}" </dev/null \
  >"$work/server.log" 2>&1 &
server_job=$!

base_url="http://127.0.0.1:$http_port"
ready=0
for _ in $(seq 600); do
  if curl -sf -m 5 "$base_url/v2/health/ready" >/dev/null; then ready=1; break; fi
  kill -0 "$server_job" 2>/dev/null || fail "the server exited before it was ready"
  sleep 0.1
done
[ "$ready" = 1 ] || fail "the server was not ready after 60 s"
curl -sf -m 5 "$base_url/v2/health/live" >/dev/null || fail "/v2/health/live"
server_metadata=$(curl -sf -m 5 "$base_url/v2") || fail "GET /v2"
echo "== ready: $server_metadata"

for check in "${checks[@]}"; do
  read -r name input expected <<<"$check"
  python3 - "$base_url" "$name" "$input" "$expected" <<'EOF' || fail "infer on $name"
# Runs one model over the HTTP/REST protocol with JSON tensors (the standard
# library only) and compares every output with the expected .npy files.
import ast, json, math, os, struct, sys, urllib.request

base_url, name, input_path, expected_dir = sys.argv[1:]

def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", path
    header_len = struct.unpack("<H", data[8:10])[0] if data[6] == 1 else \
        struct.unpack("<I", data[8:12])[0]
    start = 10 if data[6] == 1 else 12
    header = ast.literal_eval(data[start:start + header_len].decode("latin1"))
    assert header["descr"] == "<f4" and not header["fortran_order"], path
    body = data[start + header_len:]
    return list(header["shape"]), list(struct.unpack("<%df" % (len(body) // 4), body))

def get(path):
    with urllib.request.urlopen(base_url + path, timeout=60) as answer:
        return json.load(answer)

metadata = get("/v2/models/" + name)
assert len(metadata["inputs"]) == 1, metadata
shape, values = read_npy(input_path)
request = {"id": "container-check", "inputs": [{
    "name": metadata["inputs"][0]["name"], "shape": shape,
    "datatype": "FP32", "data": values}]}
post = urllib.request.Request(
    base_url + "/v2/models/%s/infer" % name, json.dumps(request).encode(),
    {"Content-Type": "application/json"})
with urllib.request.urlopen(post, timeout=60) as answer:
    result = json.load(answer)
assert result["id"] == "container-check", result.get("id")
# An expected file writes a "/" of the output's name as "__".
outputs = {o["name"].replace("/", "__"): o for o in result["outputs"]}
compared = 0
for file in sorted(os.listdir(expected_dir)):
    if not (file.startswith("expected_") and file.endswith(".npy")):
        continue
    out_name = file[len("expected_"):-len(".npy")]
    want_shape, want = read_npy(os.path.join(expected_dir, file))
    got = outputs[out_name]
    assert got["shape"] == want_shape, (out_name, got["shape"], want_shape)
    worst = max((abs(a - b) for a, b in zip(got["data"], want)), default=0.0)
    assert worst <= 1e-4 and all(math.isfinite(a) for a in got["data"]), \
        (out_name, worst)
    print("== %s: %s %s matches %s (largest difference %.2g)"
          % (name, out_name, got["shape"], file, worst))
    compared += 1
assert compared > 0, "no expected output in " + expected_dir
EOF
done

if [ -n "$grpc_port" ]; then
  # ServerLive over gRPC with curl's HTTP/2: an empty request message (a
  # 5-byte frame) answered by ServerLiveResponse{live: true}, the bytes
  # 08 01 in a frame of length 2.
  answer=$(printf '\0\0\0\0\0' |
    curl -sf -m 10 --http2-prior-knowledge -H 'content-type: application/grpc' \
      -H 'te: trailers' --data-binary @- \
      "http://127.0.0.1:$grpc_port/inference.GRPCInferenceService/ServerLive" |
    od -An -tx1 | tr -d ' \n') || fail "gRPC ServerLive: curl failed"
  [ "$answer" = 00000000020801 ] || fail "gRPC ServerLive answered '$answer'"
  echo "== gRPC ServerLive on port $grpc_port: live"
fi

# As `docker stop`, though with the time KServe's pods get (30 s) rather
# than Docker's 10 s before SIGKILL.
server_pid=$(pgrep -P "$server_job" || true)
[ -n "$server_pid" ] || fail "no server process under the run's job"
kill -TERM "$server_pid"
for _ in $(seq 300); do kill -0 "$server_job" 2>/dev/null || break; sleep 0.1; done
kill -0 "$server_job" 2>/dev/null && fail "the server still ran 30 s after SIGTERM"
status=0
wait "$server_job" || status=$?
server_job=""
[ "$status" -eq 0 ] || fail "the server exited $status after SIGTERM"
echo "container_check: $dockerfile built, served and stopped cleanly (exit 0" \
     "after SIGTERM) in $((SECONDS - start)) s"
