package task

// Serve is the model an online server answers with (package serve,
// `rgnn serve`): the model of Eval with its trained weights, on the clean
// graph or the perturbed graph of GraphFile as the starting point, and
// the structure smoothing of its background certificates (EdgeNoise, as
// Certify; the other certificate parameters are Certify's defaults).
type Serve struct {
	Eval
	EdgeNoise
	// CertSamples is n₁ of every background certificate (0: none).
	CertSamples int `param:"cert_samples" cli:"only" help:"n₁, smoothing samples of each background certificate, re-run for every new graph version (0: no certificates); the pre-votes take certify's 100 more"`
}

// Defaults returns the spec with every parameter at its default: the
// paper's smoothing of the structure (p₊ = 0.001, p₋ = 0.4) with 1,000
// samples per certificate.
func (Serve) Defaults() Serve {
	return Serve{Eval: Eval{}.Defaults(), EdgeNoise: EdgeNoise{PAdd: 0.001, PDel: 0.4}, CertSamples: 1000}
}

// Validate checks every parameter: a server needs trained weights.
func (s Serve) Validate() error {
	if err := s.Eval.Validate(); err != nil {
		return err
	}
	if s.Weights == "" {
		return bad("weights", s.Weights, "a server needs trained weights (rgnn train --out W.npz)")
	}
	if s.CertSamples < 0 {
		return bad("cert_samples", s.CertSamples, "must be ≥ 0 (0: no certificates)")
	}
	if s.CertSamples > 0 {
		return s.Certify().Validate()
	}
	return nil
}

// Certify is the certificate spec of the background certificates: Certify's
// defaults with the model, the noise and n₁ of s.
func (s Serve) Certify() Certify {
	c := Certify{}.Defaults()
	c.Train, c.EdgeNoise, c.Samples = s.Train, s.EdgeNoise, s.CertSamples
	return c
}
