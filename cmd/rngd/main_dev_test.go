//go:build tirage_dev

package main

// devUsageCases are TestUsageErrors' dev mode cases in a dev build: dev
// mode, asked for by --dev or by the config file, is taken (a production
// build refuses it first: main_nodev_test.go), and the rest of the config
// is checked; a config error still exits 2 before anything is created. A
// valid dev config would start the daemon: the loadtest package starts a
// dev build of rngd in a process (TestKillUnderLoad).
func devUsageCases(write func(name, toml string) string, base string) map[string]usageCase {
	sweep := "[game]\nsweep_interval = \"-1s\"\n"
	return map[string]usageCase{
		"dev flag, config error":   {[]string{"--dev", "--config", write("dev-flag.toml", base+sweep)}, "game.sweep_interval"},
		"dev config, config error": {[]string{"--config", write("dev.toml", "dev = true\n"+base+sweep)}, "game.sweep_interval"},
		"dev flag, argument":       {[]string{"--dev", "extra"}, "unexpected argument"},
	}
}
