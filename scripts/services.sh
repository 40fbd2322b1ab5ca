# Sourced by test.sh and bench.sh: start and stop the real peers the tests use.
# Each service script writes its addresses into .run/*.env, which tests read.
# They run with bash: a checkout without execute bits (a source archive,
# core.fileMode false) starts them too, rather than skipping the tests that
# need them.
services_up() {
  mkdir -p .run
  if [ -f scripts/trillian.sh ]; then
    bash scripts/trillian.sh up
  fi
}
services_down() {
  if [ -f scripts/trillian.sh ]; then
    bash scripts/trillian.sh down || true
  fi
}
