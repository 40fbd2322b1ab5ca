package tilelog

// WithSegmentBytes returns cfg with journal segments of n bytes, for the
// external crash tests.
func WithSegmentBytes(cfg Config, n int64) Config {
	cfg.segmentBytes = n
	return cfg
}
