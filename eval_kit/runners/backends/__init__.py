"""Model backends: each turns a batch of Samples into raw response texts. Heavy imports stay inside them."""
