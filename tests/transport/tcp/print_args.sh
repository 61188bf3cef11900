#!/bin/sh
# Prints each argument in brackets, to show exactly what roamrun passed on.
printf '[%s]' "$@"
echo
