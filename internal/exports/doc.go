// Package exports reads an /etc/exports file the way exportfs (nfs-utils)
// reads it, and says what exportfs would refuse or misread: the parser
// both the validator and the merge of exports fragments use. It checks;
// exportfs -ra, run on a staged copy by the validator, has the last word.
package exports
