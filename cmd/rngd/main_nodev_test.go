//go:build !tirage_dev

package main

// devUsageCases are TestUsageErrors' dev mode cases in a production build:
// dev mode, asked for by --dev or by the config file, is refused.
func devUsageCases(write func(name, toml string) string, base string) map[string]usageCase {
	return map[string]usageCase{
		"dev in production":        {[]string{"--dev"}, "built without dev mode"},
		"dev config in production": {[]string{"--config", write("dev.toml", "dev = true\n"+base)}, "built without dev mode"},
	}
}
