"""torch.utils.tensorboard: PyTorch's SummaryWriter writes TensorBoard event files through the
`tensorboard` package (its protobuf records), which Ember does not provide.  Importing it fails as
it does under PyTorch without that package: ModuleNotFoundError: No module named 'tensorboard'
(makemore.py imports SummaryWriter at the top)."""
import tensorboard  # noqa: F401  (raises ModuleNotFoundError where it is not installed)

raise ImportError("torch.utils.tensorboard: Ember cannot write TensorBoard event files")
