"abc
