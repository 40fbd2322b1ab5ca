# Sourced by test.sh and bench.sh: start and stop the real peers the tests use.
# Each service script writes its addresses into .run/*.env, which tests read.
services_up() {
  mkdir -p .run
  if [ -x scripts/trillian.sh ]; then
    bash scripts/trillian.sh up
  fi
}
services_down() {
  if [ -x scripts/trillian.sh ]; then
    bash scripts/trillian.sh down || true
  fi
}
