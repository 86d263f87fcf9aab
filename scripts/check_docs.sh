#!/usr/bin/env bash
# The plugin guides compile: every ```cpp and ```cmake block of
# docs/add_a_device.md and docs/add_an_op.md must appear verbatim in a file
# under examples/ (which CI builds and tests out of tree), so a guide
# cannot drift from code that works. Run by ctest as docs.code_blocks.
#   scripts/check_docs.sh [DOC.md ...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
docs=("$@")
[ ${#docs[@]} -gt 0 ] || docs=("$root/docs/add_a_device.md" "$root/docs/add_an_op.md")
exec perl -e '
  use strict; use warnings;
  my ($examples, @docs) = @ARGV;
  my %sources;  # path -> contents
  my @stack = ($examples);
  while (my $dir = shift @stack) {
    opendir(my $dh, $dir) or die "cannot list $dir: $!\n";
    for my $e (sort grep { !/^\./ } readdir $dh) {
      my $p = "$dir/$e";
      if (-d $p) { push @stack, $p; next; }
      next unless $p =~ /\.(cc|h|txt|cmake)$/;
      open(my $fh, "<", $p) or die "cannot read $p: $!\n";
      local $/; $sources{$p} = <$fh>;
    }
  }
  my ($blocks, $bad) = (0, 0);
  for my $doc (@docs) {
    open(my $fh, "<", $doc) or die "cannot read $doc: $!\n";
    my @lines = <$fh>;
    my ($lang, $start, $text);
    for my $i (0 .. $#lines) {
      my $line = $lines[$i];
      if (!defined $lang && $line =~ /^```(cpp|cmake)\s*$/) {
        ($lang, $start, $text) = ($1, $i + 1, "");
      } elsif (defined $lang && $line =~ /^```\s*$/) {
        $blocks++;
        my $found = grep { index($sources{$_}, $text) >= 0 } keys %sources;
        if (!$found || $text eq "") {
          $bad++;
          print "FAIL: $doc:$start: this ```$lang block is not a verbatim part",
                " of any file under examples/:\n$text\n";
        }
        undef $lang;
      } elsif (defined $lang) {
        $text .= $line;
      }
    }
    die "$doc: unterminated ```$lang block from line $start\n" if defined $lang;
  }
  die "no ```cpp or ```cmake blocks found in @docs\n" if $blocks == 0;
  print "docs: $blocks code blocks, ", $blocks - $bad, " found verbatim in examples/, $bad not\n";
  exit($bad ? 1 : 0);
' "$root/examples" "${docs[@]}"
