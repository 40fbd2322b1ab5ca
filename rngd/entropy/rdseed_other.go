//go:build !amd64

package entropy

func rdseedSupported() bool { return false }

func rdseed64(int) (uint64, bool) { return 0, false }
